// One catalogue of domain errors. Each is rendered in the live API's shapes ({error} / {message, errors} / code)
// or in the preview envelope, by whichever root served the request (see error-handler.ts).
import { refusedHeaders, type RateLimitState } from './rate-limit-headers.js';
import type { FieldErrors } from '../field-errors.js';

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
  authFailuresThrottled: (retryAfterSeconds: number) =>
    new ApiError(429, 'too_many_auth_failures',
      `Too many requests with an invalid API key from your address; retry after ${retryAfterSeconds} s.`,
      { liveCode: true, headers: { 'retry-after': String(retryAfterSeconds) } }),
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
  unsupportedMediaType: (type: string | null, accepted: readonly string[]) =>
    new ApiError(415, 'unsupported_media_type',
      `${type === null ? 'A request body without a Content-Type' : `Content-Type ${type}`} is not accepted here; send ${accepted.join(' or ')}.`),
  payloadTooLarge: (limitBytes: number) =>
    new ApiError(413, 'payload_too_large', `The request body is too large: this endpoint accepts at most ${limitBytes / 1024} KiB.`),
  // The next three are written straight onto the socket (listener-limits.ts, connection-cap.ts), before a
  // request is routed, so they always take the live shape; each closes the connection.
  requestTimeout: (headersSeconds: number, requestSeconds: number) =>
    new ApiError(408, 'request_timeout',
      `The request was not received in time: headers are due within ${headersSeconds} s and the whole request within ${requestSeconds} s.`, { liveCode: true }),
  headersTooLarge: (limitBytes: number) =>
    new ApiError(431, 'headers_too_large', `The request headers are too large: at most ${limitBytes / 1024} KiB in all.`, { liveCode: true }),
  malformedRequest: () => new ApiError(400, 'malformed_request', 'The request is not valid HTTP/1.1.', { liveCode: true }),
  // The next two are raised by the router, before a route is matched (error-handler.ts, frameworkErrors).
  malformedPath: () =>
    new ApiError(400, 'malformed_path', 'The request path is not valid percent-encoded UTF-8 (such as %ff); encode each byte of the UTF-8 text.', { liveCode: true }),
  pathSegmentTooLong: (maxChars: number) =>
    new ApiError(414, 'path_segment_too_long', `A segment of the request path is longer than ${maxChars} characters.`, { liveCode: true }),
  tooManyConnections: (cap: number) =>
    new ApiError(503, 'too_many_connections', `Too many open connections from your address (at most ${cap}); close some and retry.`, { liveCode: true }),
  internal: () => new ApiError(500, 'internal_error', 'Internal server error.'),
  callsPerSecondExceeded: (cap: number, retryAfterSeconds: number, resetAt: number) =>
    new ApiError(429, 'calls_per_second_exceeded', `This account may place at most ${cap} calls per second; retry after ${retryAfterSeconds} s.`,
      { liveCode: true, headers: refusedHeaders({ limit: cap, remaining: 0, resetAt }, retryAfterSeconds) }),
  callNotPlaced: (reason: string) => new ApiError(500, 'call_not_placed', `The call could not be placed: ${reason}.`),
  callEnded: (status: string) =>
    new ApiError(409, 'call_ended', `The call has already ended (${status}); it cannot be changed.`, { liveCode: true }),
  callAnswered: () =>
    new ApiError(409, 'call_in_progress', 'The call has been answered: "canceled" is for a call still queued or ringing; set status "completed" to hang it up.', { liveCode: true }),
  callNotCarriedHere: () =>
    new ApiError(409, 'call_not_carried_here', 'The call is not running on this control plane (it may be left over from a restart and about to be reconciled); it cannot be changed here.', { liveCode: true }),
  callOwnerUnavailable: () =>
    new ApiError(503, 'call_owner_unavailable', 'The control plane carrying this call does not answer (it may have just stopped; the others finish its calls within 15 s). Retry shortly.',
      { liveCode: true, headers: { 'retry-after': '5' } }),
  nodeDraining: () =>
    new ApiError(503, 'node_draining', 'This control plane is draining and no other takes new calls now. Retry shortly.',
      { liveCode: true, headers: { 'retry-after': '5' } }),
  forwardedBodyMismatch: () =>
    new ApiError(400, 'forwarded_body_mismatch', 'The body of a request forwarded between control planes is not the one its sender signed.', { liveCode: true }),
  callNotRunningMarkup: () =>
    new ApiError(409, 'call_not_running_markup', 'No markup runs on this call now (an outbound call not yet answered, a dialled or agent leg, or markup that has finished): it cannot be redirected.', { liveCode: true }),
  callNotInProgress: (status: string) =>
    new ApiError(409, 'call_not_in_progress', `The call is ${status}; recording can only be controlled while it is in progress.`, { liveCode: true }),
  recordingImmutable: () =>
    new ApiError(409, 'recording_immutable', "The number's recording policy is locked (immutable): this recording cannot be paused or stopped.", { liveCode: true }),
  recordingFinished: () => new ApiError(409, 'recording_completed', 'The recording has already finished.', { liveCode: true }),
  recordingNotReady: () => new ApiError(409, 'recording_in_progress', 'The recording is still in progress; download it once it has completed.', { liveCode: true }),
  transcriptionRefused: (why: string) => new ApiError(409, 'transcription_not_started', why, { liveCode: true }),
  recordingControlsOff: () => new ApiError(503, 'recording_controls_disabled', 'Recording controls are switched off for this account.', { liveCode: true }),
  engineRejected: (message: string, status: number | undefined, body: string | undefined) =>
    new ApiError(502, 'engine_rejected', `The call engine rejected the command: ${message}`, { extra: { engine_status: status ?? null, engine_body: body ?? null } }),
};

// Preview-root (/v1) errors. Rendered as the preview envelope; codes are stable (docs/preview-api.md).
export const previewErrors = {
  httpsRequired: () =>
    new ApiError(400, 'https_required', 'The preview API is served over HTTPS only; resend this request to the https:// address.'),
  parameterMissing: (param: string, message = `The ${param} parameter is required.`) =>
    new ApiError(400, 'parameter_missing', message, { param }),
  parameterInvalid: (param: string, message: string) => new ApiError(400, 'parameter_invalid', message, { param }),
  parameterUnknown: (param: string) =>
    new ApiError(400, 'parameter_unknown', `Received unknown parameter: ${param}.`, { param }),
  rateLimited: (state: RateLimitState, retryAfterSeconds: number) =>
    new ApiError(429, 'rate_limit_exceeded', `Too many requests: this API key may make ${state.limit} requests per window; retry after ${retryAfterSeconds} s.`,
      { headers: refusedHeaders(state, retryAfterSeconds) }),
  subscriptionExists: (eventType: string, sid: string) =>
    new ApiError(409, 'subscription_exists', `A subscription for ${eventType} already exists (${sid}); update or delete it instead.`, { param: 'event_type' }),
  injectionTokenRequired: () =>
    new ApiError(401, 'injection_token_required', 'An injection token is required. Pass it in the X-Injection-Token header.'),
  injectionTokenInvalid: () => new ApiError(401, 'injection_token_invalid', 'The injection token is invalid or has been rotated.'),
  /** The resource's state forbids the change (a completed conference, a participant that has left). */
  conflict: (code: string, message: string) => new ApiError(409, code, message),
  ipNotAllowed: (ip: string) =>
    new ApiError(403, 'ip_not_allowed', `Requests from ${ip} are not on this organisation's lead-injection IP allow-list.`),
};
