// The rules an account's transcription endpoint must meet, whichever surface writes it (the API, the dashboard): the
// URL under the customer-URL rule (https, public), a model name, a printable key.
import { checkCustomerUrl, customerUrlProblem, type CustomerUrlRule } from '../net/index.js';

export const TRANSCRIPTION_MODEL = /^[A-Za-z0-9._:/-]{1,128}$/;
export const TRANSCRIPTION_KEY = /^[\x21-\x7e]{1,512}$/;

export interface TranscriptionInput { url: string; model: string; key?: string | null }

/** What is wrong with each field, by its API name; empty when nothing is. */
export function transcriptionProblems(input: TranscriptionInput, urls: CustomerUrlRule): Record<string, string> {
  const problems: Record<string, string> = {};
  const check = checkCustomerUrl(input.url, urls);
  if (!check.ok) problems.transcription_url = customerUrlProblem('transcription_url', check);
  if (!TRANSCRIPTION_MODEL.test(input.model)) problems.transcription_model = 'The transcription_model must be 1-128 letters, digits, ".", "_", ":", "/" or "-".';
  if (typeof input.key === 'string' && !TRANSCRIPTION_KEY.test(input.key)) problems.transcription_api_key = 'The transcription_api_key must be 1-512 printable characters without spaces.';
  return problems;
}
