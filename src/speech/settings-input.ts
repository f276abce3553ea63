// The rules an account's OpenAI-compatible endpoints must meet (its transcription endpoint, its speech endpoint and
// voices), whichever surface writes them (the API, the dashboard): the URL under the customer-URL rule (https,
// public), a model name, a printable key, voice names <Say voice> can carry that are not the built-in ones.
import { checkCustomerUrl, customerUrlProblem, type CustomerUrlRule } from '../net/index.js';
import { isBuiltInVoice, VOICE_NAME } from '../markup/index.js';

export const ENDPOINT_MODEL = /^[A-Za-z0-9._:/-]{1,128}$/;
export const ENDPOINT_KEY = /^[\x21-\x7e]{1,512}$/;
export const MAX_VOICES = 50;

export interface EndpointInput { url: string; model: string; key?: string | null }
export interface VoicesInput extends EndpointInput { voices: string[] }

/** What is wrong with each field, by its API name (`transcription_url`, `speech_model`…); empty when nothing is. */
function endpointProblems(kind: 'transcription' | 'speech', input: EndpointInput, urls: CustomerUrlRule): Record<string, string> {
  const problems: Record<string, string> = {};
  const check = checkCustomerUrl(input.url, urls);
  if (!check.ok) problems[`${kind}_url`] = customerUrlProblem(`${kind}_url`, check);
  if (!ENDPOINT_MODEL.test(input.model)) problems[`${kind}_model`] = `The ${kind}_model must be 1-128 letters, digits, ".", "_", ":", "/" or "-".`;
  if (typeof input.key === 'string' && !ENDPOINT_KEY.test(input.key)) problems[`${kind}_api_key`] = `The ${kind}_api_key must be 1-512 printable characters without spaces.`;
  return problems;
}

export function transcriptionProblems(input: EndpointInput, urls: CustomerUrlRule): Record<string, string> {
  return endpointProblems('transcription', input, urls);
}

export function voiceProblems(input: VoicesInput, urls: CustomerUrlRule): Record<string, string> {
  const problems = endpointProblems('speech', input, urls);
  const voices = voicesProblem(input.voices);
  if (voices) problems.voices = voices;
  return problems;
}

function voicesProblem(voices: string[]): string | null {
  if (voices.length < 1 || voices.length > MAX_VOICES) return `The voices must list 1 to ${MAX_VOICES} names.`;
  const bad = voices.find((v) => !VOICE_NAME.test(v));
  if (bad !== undefined) return `The voice "${bad.slice(0, 80)}" must be 1-64 letters, digits, ".", "_" or "-".`;
  const builtIn = voices.find(isBuiltInVoice);
  if (builtIn !== undefined) return `The voice "${builtIn}" is a built-in voice name; an endpoint's voices need other names.`;
  if (new Set(voices).size !== voices.length) return 'The voices list a name twice.';
  return null;
}

/** A typed list ("alloy, nova  shimmer") as names. */
export function voiceList(text: string): string[] {
  return text.split(/[\s,]+/).filter(Boolean);
}
