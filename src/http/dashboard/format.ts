// Small display helpers shared by the views.

/** "2026-01-01 14:05:09 UTC": readable, sortable and unambiguous without knowing the viewer's zone. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

export function seconds(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '—' : `${(ms / 1000).toFixed(1)} s`;
}

/** The sign-in pages' refusal once an address has failed too often: how long the browser's user must wait. */
export function tooManyFailures(waitSeconds: number): string {
  const wait = waitSeconds < 120 ? `${waitSeconds} seconds` : `${Math.ceil(waitSeconds / 60)} minutes`;
  return `Too many failed attempts from your address: try again in ${wait}.`;
}

/** A path segment for a phone number: "+" must be encoded or a query-string parser would read a space. */
export const numberPath = (e164: string) => `/dashboard/numbers/${encodeURIComponent(e164)}`;
