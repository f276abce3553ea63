import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, errors } from './errors.js';
import { schemaErrorHandler } from './validation.js';

export const PREVIEW_PREFIX = '/v1';

export function isPreview(req: FastifyRequest): boolean {
  return req.url === PREVIEW_PREFIX || req.url.startsWith(`${PREVIEW_PREFIX}/`);
}

function toApiError(err: FastifyError | ApiError | Error, req: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err;
  const fe = err as FastifyError;
  if (fe.validation) return schemaErrorHandler(fe.validation);
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.validation({ body: ['The request body must be valid JSON.'] });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.unsupportedMediaType(String(fe.message.match(/: (.*)$/)?.[1] ?? 'this type'));
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge(req.routeOptions.bodyLimit);
  }
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) return new ApiError(fe.statusCode, 'bad_request', fe.message);
  return errors.internal();
}

/** Laravel-style content negotiation, which the spec documents: only JSON-accepting clients get a JSON 422. */
function wantsJson(req: FastifyRequest): boolean {
  return /\/json|\+json/i.test(req.headers.accept ?? '');
}

/** Back to the page the form came from, but never off-site: a Referer of another origin becomes "/". */
function redirectTarget(req: FastifyRequest): string {
  const referer = req.headers.referer;
  if (!referer) return '/';
  try {
    const url = new URL(referer, `http://${req.headers.host ?? 'localhost'}`);
    return url.host === req.headers.host ? url.pathname + url.search : '/';
  } catch {
    return '/';
  }
}

function previewType(status: number): string {
  if (status === 401 || status === 403) return 'authentication_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

export function previewBody(e: ApiError, requestId: string) {
  return {
    error: {
      type: previewType(e.status),
      code: e.code,
      message: e.message,
      ...(e.opts.param ? { param: e.opts.param } : {}),
      status: e.status,
      request_id: requestId,
    },
  };
}

export function liveBody(e: ApiError): Record<string, unknown> {
  const field = e.opts.liveField ?? 'error';
  return {
    [field]: e.message,
    ...(e.opts.errors ? { errors: e.opts.errors } : {}),
    ...(e.opts.liveCode ? { code: e.code } : {}),
    ...e.opts.extra,
  };
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setNotFoundHandler((req) => {
    throw errors.routeNotFound(req.method, req.url.split('?')[0] ?? req.url);
  });

  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const e = toApiError(err, req);
    if (e.status >= 500) req.log.error({ err }, 'request failed');
    if (e.opts.headers) void reply.headers(e.opts.headers);
    if (isPreview(req)) return reply.status(e.status).send(previewBody(e, String(req.id)));
    if (e.status === 422 && !wantsJson(req)) return reply.redirect(redirectTarget(req), 302);
    return reply.status(e.status).send(liveBody(e));
  });
}
