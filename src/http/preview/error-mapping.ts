// The preview root reports bad input as 400 with a `param` (spec: "400 Preview: parameter missing, malformed
// or invalid"), where the live API answers 422. This scope-level handler translates, then lets the app's
// one error handler render the envelope.
import type { ErrorObject } from 'ajv';
import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError, previewErrors } from '../errors.js';
import { fieldErrorsFromAjv } from '../validation.js';

function fromAjv(list: ErrorObject[], context: string | undefined): ApiError {
  const first = list.find((e) => e.keyword === 'additionalProperties') ?? list.find((e) => e.keyword === 'required') ?? list[0]!;
  const path = first.instancePath.split('/').slice(1).join('.');
  if (first.keyword === 'additionalProperties') {
    const name = String(first.params.additionalProperty);
    return previewErrors.parameterUnknown(path ? `${path}.${name}` : name);
  }
  const [param, messages] = Object.entries(fieldErrorsFromAjv([first]))[0] ?? [path || (context ?? 'body'), ['is invalid']];
  const message = (messages[0] ?? '').replace(/\bfield\b/, 'parameter');
  if (first.keyword === 'required') return previewErrors.parameterMissing(param, message);
  return previewErrors.parameterInvalid(param, message);
}

export function toPreviewError(err: FastifyError | Error): Error {
  if (err instanceof ApiError) return err;
  const fe = err as FastifyError;
  if (fe.validation) return fromAjv(fe.validation as ErrorObject[], fe.validationContext);
  if (fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
    return previewErrors.parameterInvalid('body', 'The request body must be valid JSON.');
  }
  return err;
}

export function installPreviewErrorMapping(scope: FastifyInstance): void {
  scope.setErrorHandler((err: FastifyError) => {
    // Rethrown errors reach the parent (app-wide) handler, which renders every /v1 error the same way.
    throw toPreviewError(err);
  });
}
