import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { ApiError, errors } from './errors.js';
import { schemaErrorHandler } from './validation.js';

export const PREVIEW_PREFIX = '/v1';
const DASHBOARD_PREFIX = '/dashboard';
const FORM = 'application/x-www-form-urlencoded';

const under = (req: FastifyRequest, prefix: string) => req.url === prefix || req.url.startsWith(`${prefix}/`) || req.url.startsWith(`${prefix}?`);
export const isPreview = (req: FastifyRequest): boolean => under(req, PREVIEW_PREFIX);

/** The dashboard's error page (HTML), for errors raised before its own handler can see them. */
export type ErrorPage = (status: number, message: string) => string;

/** The media type the client sent, if it reads as one (`type/subtype`), for the 415 message. */
function sentMediaType(req: FastifyRequest): string | null {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === '') return null;
  return /^[a-z0-9!#$&^_.+-]{1,60}\/[a-z0-9!#$&^_.+-]{1,60}$/.test(type) ? type : 'of that form';
}

/** What the route takes: JSON everywhere; form bodies too where its scope parses them (ACD and conference writes). */
function acceptedMediaTypes(req: FastifyRequest): string[] {
  return req.server.hasContentTypeParser(FORM) ? ['application/json', FORM] : ['application/json'];
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
      return errors.unsupportedMediaType(sentMediaType(req), acceptedMediaTypes(req));
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge(req.routeOptions.bodyLimit);
    case 'FST_ERR_BAD_URL':
      return errors.malformedPath();
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return errors.pathSegmentTooLong(MAX_PATH_SEGMENT_CHARS);
  }
  // Any other client error fastify raises (a Content-Length that disagrees with the body, a bad JSON prototype key):
  // its status, in our shape, with a message of our own rather than the framework's wording.
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new ApiError(fe.statusCode, 'bad_request', 'The request could not be read: check its headers and body against the API reference.');
  }
  return errors.internal();
}

/**
 * The longest path segment the router takes, as sent (percent-encoded): the longest name a path carries (a 255
 * character campaign name), every character a 4-byte UTF-8 sequence written as %XX%XX%XX%XX.
 */
export const MAX_PATH_SEGMENT_CHARS = 255 * 12;

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

/** Every error in the shape of the root that was asked: the preview envelope, the dashboard's page, the live API's bodies. */
function send(e: ApiError, req: FastifyRequest, reply: FastifyReply, page: ErrorPage) {
  if (e.opts.headers) void reply.headers(e.opts.headers);
  if (isPreview(req)) return reply.status(e.status).send(previewBody(e, String(req.id)));
  if (under(req, DASHBOARD_PREFIX)) return reply.status(e.status).type('text/html; charset=utf-8').send(page(e.status, e.message));
  if (e.status === 422 && !wantsJson(req)) return reply.redirect(redirectTarget(req), 302);
  return reply.status(e.status).send(liveBody(e));
}

export function installErrorHandling(app: FastifyInstance, page: ErrorPage): void {
  app.setNotFoundHandler((req) => {
    throw errors.routeNotFound(req.method, req.url.split('?')[0] ?? req.url);
  });

  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const e = toApiError(err, req);
    if (e.status >= 500) req.log.error({ err }, 'request failed');
    return send(e, req, reply, page);
  });
}

/**
 * Fastify's `frameworkErrors`: what the router refuses before any route, hook or error handler runs (a path that is
 * not valid percent-encoding, a segment over MAX_PATH_SEGMENT_CHARS). Without it fastify writes its own JSON.
 */
export function frameworkErrors(page: ErrorPage): NonNullable<FastifyServerOptions['frameworkErrors']> {
  return (err, req, reply) => {
    void reply.header('x-request-id', String(req.id));
    return send(toApiError(err, req), req, reply, page);
  };
}
