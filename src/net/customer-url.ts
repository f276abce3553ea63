// The one rule for every URL a customer gives the platform to call back (number webhooks, API call `url` and
// `status_callback`, recording callbacks, webhook subscriptions): https, on a host the target policy accepts.
// Plain http is allowed only to loopback, and only under the development flag (RINGBASE_DEV_ALLOW_LOCAL_TARGETS).
// Media URLs in markup are not customer callbacks: they follow the media fetch policy (src/media).
import { checkTargetUrl, type UrlCheck } from './url-policy.js';

export interface CustomerUrlRule {
  /** config.devAllowLocalTargets */
  allowLocalTargets: boolean;
}

export function checkCustomerUrl(raw: string, rule: CustomerUrlRule, allowHosts?: readonly string[]): UrlCheck {
  return checkTargetUrl(raw, { requireHttps: true, allowLoopback: rule.allowLocalTargets, ...(allowHosts ? { allowHosts } : {}) });
}

/** The sentence an input error shows: `The webhook_url is refused (https_required): target must use https.` */
export function customerUrlProblem(field: string, check: Extract<UrlCheck, { ok: false }>): string {
  return `The ${field} is refused (${check.code}): ${check.reason}.`;
}
