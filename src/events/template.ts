// Payload templates: JSON text with `{{path.to.value}}` placeholders, each replaced by the JSON encoding of
// that value of the delivery body. No logic, loops or filters: a template can only reshape, never compute.
import { EVENT_DATA, ENVELOPE_FIELDS, OPEN_OBJECTS } from './catalogue.js';
import type { EventType } from './lifecycle.js';

export const MAX_TEMPLATE_LENGTH = 16 * 1024;

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const PATH = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

export class TemplateError extends Error {
  override name = 'TemplateError';
}

function placeholders(template: string): string[] {
  const paths = [...template.matchAll(PLACEHOLDER)].map((m) => m[1]!);
  const rest = template.replace(PLACEHOLDER, '');
  if (rest.includes('{{') || rest.includes('}}')) throw new TemplateError('has an unbalanced "{{" or "}}"');
  for (const p of paths) {
    if (!PATH.test(p)) throw new TemplateError(`placeholder {{${p}}} is not a dotted path such as {{data.from}}`);
  }
  return paths;
}

function knownPath(path: string, type: EventType): boolean {
  const [head, field, ...deeper] = path.split('.');
  // Object.hasOwn, not `in`: "__proto__" or "constructor" must not pass as fields.
  if (head !== 'data') return field === undefined && Object.hasOwn(ENVELOPE_FIELDS, head!);
  if (field === undefined) return true;
  if (!Object.hasOwn(EVENT_DATA[type], field)) return false;
  return deeper.length === 0 || (deeper.length === 1 && (OPEN_OBJECTS[type] ?? []).includes(field));
}

export function sampleBody(type: EventType): Record<string, unknown> {
  const envelope = Object.fromEntries(Object.entries(ENVELOPE_FIELDS).map(([k, f]) => [k, f.sample]));
  const data = Object.fromEntries(Object.entries(EVENT_DATA[type]).map(([k, f]) => [k, f.sample]));
  return { ...envelope, event_type: type, data };
}

/**
 * Checked when a subscription is saved, so a broken template is refused then rather than failing every
 * delivery later: only paths documented for the event type, and valid JSON once filled with sample values.
 */
export function validateTemplate(template: string, type: EventType): void {
  if (template.length > MAX_TEMPLATE_LENGTH) throw new TemplateError(`must not be longer than ${MAX_TEMPLATE_LENGTH} characters`);
  for (const path of placeholders(template)) {
    if (!knownPath(path, type)) throw new TemplateError(`placeholder {{${path}}} is not a field of ${type} events (see docs/events.md)`);
  }
  try {
    JSON.parse(renderTemplate(template, sampleBody(type)));
  } catch (err) {
    throw new TemplateError(`must be valid JSON once each placeholder is replaced by a JSON value (${(err as Error).message}); placeholders stand for whole values, so do not put them inside quotes`);
  }
}

function lookup(body: unknown, path: string): unknown {
  let value: unknown = body;
  for (const key of path.split('.')) {
    value = value !== null && typeof value === 'object' && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}

/** Missing values (an optional field this event lacks) become null, so the output stays valid JSON. */
export function renderTemplate(template: string, body: Record<string, unknown>): string {
  return template.replace(PLACEHOLDER, (_m, path: string) => JSON.stringify(lookup(body, path) ?? null));
}
