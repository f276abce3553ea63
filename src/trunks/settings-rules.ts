// What trunk settings may hold beyond their shape (the schema, which also holds sip_domain to the host name rule):
// callback URLs under the one https rule, caller IDs in E.164. Used by the API and the dashboard through TrunkService.
import type { FieldErrors } from '../field-errors.js';
import type { TrunkSettings } from '../store/trunks.js';
import { checkCustomerUrl, customerUrlProblem, type CustomerUrlRule } from '../net/customer-url.js';
import { E164 } from '../numbers/settings.js';

const URL_FIELDS = ['voice_webhook_url', 'voice_fallback_url', 'voice_refer_url', 'cli_lookup_url', 'status_callback_url', 'hangup_url'] as const;

export function trunkSettingsProblems(s: Partial<TrunkSettings>, rule: CustomerUrlRule): FieldErrors | null {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  for (const field of URL_FIELDS) {
    const url = s[field];
    if (url === null || url === undefined) continue;
    const check = checkCustomerUrl(url, rule);
    if (!check.ok) add(field, customerUrlProblem(field, check));
  }
  if (s.default_caller_id != null && !E164.test(s.default_caller_id)) {
    add('default_caller_id', `The default caller ID must be an E.164 number such as +14155550100, got "${s.default_caller_id}".`);
  }
  for (const id of s.allowed_caller_ids ?? []) {
    if (!E164.test(id)) add('allowed_caller_ids', `Allowed caller IDs are E.164 numbers such as +14155550100; "${id}" is not.`);
  }
  return Object.keys(errors).length > 0 ? errors : null;
}
