// One catalogue of domain errors. Each is rendered in the live API's shapes ({error} / {message, errors} / code)
// or in the preview envelope, by whichever root served the request (see error-handler.ts).

export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    /** Stable, machine-readable. */
    readonly code: string,
    message: string,
    readonly opts: {
      /** The live API uses `message` instead of `error` on validation errors and some 404s. */
      liveField?: 'error' | 'message';
      /** Whether the live body carries `code` (only some errors do, e.g. recording_immutable). */
      liveCode?: boolean;
      errors?: FieldErrors;
      param?: string;
      extra?: Record<string, unknown>;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(message);
  }
}

export const errors = {
  apiKeyRequired: () =>
    new ApiError(401, 'api_key_required',
      "An API key is required. Pass it in the Authorization header: 'Authorization: Bearer sk_live_...'."),
  apiKeyInvalid: () => new ApiError(401, 'api_key_invalid', 'The API key is invalid or expired.'),
  trunkingDisabled: () =>
    new ApiError(403, 'trunking_disabled', 'Trunk access is not enabled on this account. Ask the service team to enable it.'),
  notFound: (what: string) => new ApiError(404, 'not_found', `${what} not found.`, { liveField: 'message' }),
  routeNotFound: (method: string, url: string) => new ApiError(404, 'route_not_found', `Nothing at ${method} ${url}.`),
  validation: (fieldErrors: FieldErrors, message = 'The given data was invalid.') => {
    const param = Object.keys(fieldErrors)[0];
    return new ApiError(422, 'validation_failed', message, { liveField: 'message', errors: fieldErrors, ...(param ? { param } : {}) });
  },
  trunkCapacityExceeded: (capacity: number) =>
    errors.validation(
      { trunk: [`This account may hold at most ${capacity} trunks; revoke one or ask the service team for more.`] },
      'Trunk capacity exceeded.',
    ),
  trunkRevoked: () =>
    new ApiError(409, 'trunk_revoked', 'This trunk is revoked; a revoked trunk cannot be changed.', { liveCode: true }),
  unsupportedMediaType: (type: string) =>
    new ApiError(415, 'unsupported_media_type', `Content-Type ${type} is not accepted; send application/json.`),
  payloadTooLarge: () => new ApiError(413, 'payload_too_large', 'The request body is too large.'),
  internal: () => new ApiError(500, 'internal_error', 'Internal server error.'),
};
