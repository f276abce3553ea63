import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { isIP } from 'node:net';
import { errors } from './errors.js';
import type { FieldErrors } from '../field-errors.js';
import { CALLBACK_EVENTS } from './schemas/trunk.js';
import { hostnameProblem } from '../net/hostname.js';
import { isFormBody } from './form-bodies.js';
import { nameProblem, textProblem, trimName } from '../names/index.js';
import { readRfc3339 } from '../rfc3339.js';

const CALLBACK_EVENT_SET = new Set<string>(CALLBACK_EVENTS);

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

/** A format's rule: why a value is not of the format (the end of "The x field ..."), or null when it is. */
type FormatRule = (v: string) => string | null;
const fixed = (test: (v: string) => boolean, message: string): FormatRule => (v) => (test(v) ? null : message);

const FORMATS: Record<string, FormatRule> = {
  'http-url': fixed((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
    } catch {
      return false;
    }
  }, 'must be a valid http or https URL'),
  'single-line': fixed((v) => !/[\r\n\u2028\u2029]/.test(v), 'must not contain line breaks'),
  'callback-events': fixed(
    (v) => v.trim() !== '' && v.trim().split(/\s+/).every((e) => CALLBACK_EVENT_SET.has(e)),
    `must be a space-separated list of: ${CALLBACK_EVENTS.join(', ')}`,
  ),
  // The one host name rule (src/net/hostname.ts). Any IP: the domain is only shown, never connected to. An IPv6
  // address in brackets, as it sits in a SIP URI.
  'sip-host': fixed(
    (v) => isIP(v) !== 6 && hostnameProblem(v, 'any') === null,
    'must be a host name or IP address: two or more labels of letters, digits or "-" such as sip.example.com; IPv6 in brackets',
  ),
  // The one name rule and its free-text sibling (src/names); the schema's maxLength carries each field's limit.
  name: (v) => nameProblem(v, Infinity),
  text: (v) => textProblem(v, Infinity),
  // Replaces ajv-formats' date-time, which takes a space for the T, and V8's reading, which takes 2026-11-31.
  'date-time': (v) => { const r = readRfc3339(v); return r.ok ? null : r.problem; },
};

/**
 * `x-trim`: a name is stored without the spaces around it (src/names trimName), so the validator trims it in place
 * for every route at once. Kept in the OpenAPI document as an extension keyword.
 */
function addTrimKeyword(ajv: Ajv): void {
  ajv.addKeyword({
    keyword: 'x-trim', type: 'string', schemaType: 'boolean', modifying: true, errors: false,
    validate: (on: boolean, data: string, _schema: unknown, cxt?: { parentData: Record<string | number, unknown>; parentDataProperty: string | number }) => {
      if (on && cxt) cxt.parentData[cxt.parentDataProperty] = trimName(data);
      return true;
    },
  });
}

function makeAjv(coerce: boolean | 'array'): Ajv {
  // Bodies are validated strictly (a "true" string is not a boolean); query strings and params arrive as text.
  // verbose: a format error carries the value, so its message can say what is wrong with it.
  const ajv = new Ajv({ allErrors: true, coerceTypes: coerce, useDefaults: false, removeAdditional: false, allowUnionTypes: true, strict: false, verbose: true });
  addFormats(ajv);
  for (const [name, rule] of Object.entries(FORMATS)) ajv.addFormat(name, { type: 'string', validate: (v: string) => rule(v) === null });
  addTrimKeyword(ajv);
  return ajv;
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);
// Form bodies are text like a query string, and a field sent once may be a list of one.
const formAjv = makeAjv('array');

/** The top-level fields of a body schema that take null: a single type list with 'null' in it, or a union with null. */
function nullableFields(schema: object): Set<string> {
  const properties = (schema as { properties?: Record<string, { type?: unknown; anyOf?: { type?: unknown }[] }> }).properties ?? {};
  const takesNull = (s: { type?: unknown; anyOf?: { type?: unknown }[] }) =>
    (Array.isArray(s.type) && s.type.includes('null')) || s.type === 'null' || (s.anyOf ?? []).some(takesNull);
  return new Set(Object.entries(properties).filter(([, s]) => takesNull(s)).map(([name]) => name));
}

/**
 * A body's validator: JSON strictly typed, a form's text read as the schema's types (form-bodies.ts). A form has no
 * null: an empty value clears a field that takes null (`wait_url=`), as Twilio's API reads it.
 */
function bodyValidator(schema: object): ValidateFunction {
  const json = bodyAjv.compile(schema);
  const form = formAjv.compile(schema);
  const clearable = nullableFields(schema);
  const validate = ((data: unknown, ctx?: object) => {
    const isForm = isFormBody(data);
    if (isForm) for (const field of clearable) if ((data as Record<string, unknown>)[field] === '') (data as Record<string, unknown>)[field] = null;
    const chosen = isForm ? form : json;
    const ok = chosen(data, ctx as never);
    validate.errors = chosen.errors;
    return ok;
  }) as ValidateFunction;
  return validate;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  httpPart === 'body' ? bodyValidator(schema as object) : textAjv.compile(schema as object) as ValidateFunction;

function fieldOf(err: ErrorObject): string {
  const parts = err.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (err.keyword === 'required') parts.push(String(err.params.missingProperty));
  return parts.length === 0 ? 'body' : parts.join('.');
}

function describe(err: ErrorObject, field: string): string | null {
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'required': return `The ${field} field is required.`;
    case 'type': {
      const t = Array.isArray(p.type) ? p.type.filter((x) => x !== 'null').join(' or ') : String(p.type);
      return field === 'body' ? 'The request body must be a JSON object.' : `The ${field} field must be ${t === 'integer' ? 'an integer' : `a ${t}`}.`;
    }
    case 'maxLength': return `The ${field} field must not be greater than ${String(p.limit)} characters.`;
    case 'minLength': return Number(p.limit) === 1 ? `The ${field} field must not be empty.` : `The ${field} field must be at least ${String(p.limit)} characters.`;
    case 'maxItems': return `The ${field} field must not have more than ${String(p.limit)} items.`;
    case 'minimum': return `The ${field} field must be at least ${String(p.limit)}.`;
    case 'maximum': return `The ${field} field must not be greater than ${String(p.limit)}.`;
    case 'enum': return `The ${field} field must be one of: ${(p.allowedValues as unknown[]).map((v) => (v === null ? 'null' : String(v))).join(', ')}.`;
    case 'format': {
      const rule = FORMATS[String(p.format)];
      return `The ${field} field ${(rule && typeof err.data === 'string' ? rule(err.data) : null) ?? `must be a valid ${String(p.format)}`}.`;
    }
    case 'pattern': return `The ${field} field format is invalid.`;
    case 'additionalProperties': return null;
    default: return `The ${field} field is invalid.`;
  }
}

/** Turns ajv's errors into the live API's `{field: [messages]}`, Laravel style (`allowed_caller_ids.0`). */
export function fieldErrorsFromAjv(list: ErrorObject[]): FieldErrors {
  const out: FieldErrors = {};
  for (const err of list) {
    const field = fieldOf(err);
    const message = describe(err, field);
    if (message === null) continue;
    const bucket = (out[field] ??= []);
    if (!bucket.includes(message)) bucket.push(message);
  }
  return out;
}

export function schemaErrorHandler(list: ErrorObject[]) {
  return errors.validation(fieldErrorsFromAjv(list));
}
