// Checks on subscription fields that a JSON schema cannot express: the target against the SSRF policy and
// the allow-list, custom headers that would forge or break a delivery, and the payload template.
import { checkCustomerUrl } from '../../net/index.js';
import type { EventType } from '../../events/lifecycle.js';
import { TemplateError, validateTemplate } from '../../events/template.js';
import { EVENT_HEADER } from '../../events/payload.js';
import { SIGNATURE_HEADER } from '../../net/index.js';
import { previewErrors } from '../errors.js';
import { MASK } from '../../events/subscription-headers.js';

// Ours (signature, event, body type), plus those that frame the HTTP message itself.
const RESERVED_HEADERS = new Set([
  SIGNATURE_HEADER.toLowerCase(), EVENT_HEADER.toLowerCase(), 'content-type', 'content-length', 'content-encoding',
  'transfer-encoding', 'host', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect', 'proxy-authorization',
]);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const SAFE_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

export type TargetCheck = { ok: true; url: string } | { ok: false; code: string; why: string };

/** The subscription target rule, with the refusal as a sentence that names no field (the dashboard's words). */
export function targetCheck(url: string, allowHosts: readonly string[], allowLoopback: boolean): TargetCheck {
  const check = checkCustomerUrl(url, { allowLocalTargets: allowLoopback }, allowHosts);
  if (check.ok) return { ok: true, url: check.url.href };
  const hint = check.code === 'host_not_allowed'
    ? ' Ask your operator to add the host to the organisation allow-list (ringbase org allow-host).'
    : '';
  return { ok: false, code: check.code, why: `${check.reason}.${hint}` };
}

export function checkTarget(url: string, allowHosts: readonly string[], allowLoopback: boolean): string {
  const check = targetCheck(url, allowHosts, allowLoopback);
  if (check.ok) return check.url;
  throw previewErrors.parameterInvalid('target_url', `The target_url is refused (${check.code}): ${check.why}`);
}

export function checkHeaders(headers: Record<string, string>): Record<string, string> {
  for (const [name, value] of Object.entries(headers)) {
    const param = `headers.${name}`;
    if (!TOKEN.test(name)) throw previewErrors.parameterInvalid(param, `"${name}" is not a valid header name.`);
    if (RESERVED_HEADERS.has(name.toLowerCase())) {
      throw previewErrors.parameterInvalid(param, `The ${name} header is set by the service and cannot be overridden.`);
    }
    // A client that sends back what it fetched would otherwise replace the real value with its mask.
    if (value.startsWith(MASK)) {
      throw previewErrors.parameterInvalid(param, `The value of ${name} is a masked value as shown in responses; send the real value, or leave headers out to keep the current ones.`);
    }
    if (!SAFE_VALUE.test(value)) throw previewErrors.parameterInvalid(param, `The value of ${name} must not contain control characters or line breaks.`);
  }
  return headers;
}

export function checkTemplate(template: string | null | undefined, type: EventType): string | null {
  if (template === null || template === undefined) return null;
  try {
    validateTemplate(template, type);
  } catch (err) {
    if (err instanceof TemplateError) throw previewErrors.parameterInvalid('payload_template', `The payload_template ${err.message}.`);
    throw err;
  }
  return template;
}
