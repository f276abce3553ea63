// Reading /v1/conferences write bodies: form-encoded (as the spec sends them) or JSON, with `true`/`false` flags
// either way; every bad value is a 400 naming its param.
import { previewErrors } from '../errors.js';

export function flag(value: boolean | string | undefined, param: string): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw previewErrors.parameterInvalid(param, `The ${param} parameter must be true or false, got ${JSON.stringify(value)}.`);
}

export const CALL_SID = /^CA[0-9a-f]{32}$/;
export const CONFERENCE_SID = /^CF[0-9a-f]{32}$/;
