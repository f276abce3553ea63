// The error responses live routes document (OpenAPI), by what causes them; shapes in src/http/schemas/common.ts.

/** Every live route: 401 for a missing or invalid key, 429 once an address has sent too many invalid keys. */
export const authErrors = { 401: { $ref: 'LiveError#' }, 429: { $ref: 'LiveError#' } } as const;
export const notFoundError = { 404: { $ref: 'LiveMessage#' } } as const;
export const validationError = { 422: { $ref: 'LiveValidationError#' } } as const;
