// HTTP caching rules for fetched media (RFC 9111, the parts a prompt cache needs): how long a copy stays fresh
// and whether it may be kept at all.

export interface Freshness {
  /** Clock ms until which the copy is served without asking the origin again. */
  expiresAt: number;
  /** no-store: play this copy once and delete it; never index it. */
  store: boolean;
}

type Headers = Record<string, string | string[]>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Directives of a Cache-Control header, lower-cased, with their values (or '' for bare ones). */
function directives(value: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (value ?? '').split(',')) {
    const [name = '', ...rest] = part.trim().split('=');
    if (name !== '') out.set(name.toLowerCase(), rest.join('=').replace(/^"|"$/g, '').trim());
  }
  return out;
}

/**
 * A response's freshness at `now`: s-maxage, then max-age, then Expires, else `defaultMaxAgeMs` (origins that
 * say nothing about caching are common for prompt files; re-asking on every call would defeat the cache).
 * no-cache keeps the copy but revalidates it on every use.
 */
export function freshnessOf(headers: Headers, now: number, defaultMaxAgeMs: number): Freshness {
  const cc = directives(header(headers, 'cache-control'));
  const store = !cc.has('no-store');
  if (cc.has('no-cache')) return { expiresAt: now, store };
  for (const name of ['s-maxage', 'max-age']) {
    const seconds = Number(cc.get(name));
    if (cc.has(name) && Number.isFinite(seconds) && seconds >= 0) return { expiresAt: now + seconds * 1000, store };
  }
  const expires = header(headers, 'expires');
  if (expires !== undefined) {
    const at = Date.parse(expires);
    return { expiresAt: Number.isNaN(at) ? now : Math.max(now, now + (at - dateOf(headers, now))), store };
  }
  return { expiresAt: now + defaultMaxAgeMs, store };
}

/** The origin's own clock (Date header), so Expires is read relative to it rather than to ours. */
function dateOf(headers: Headers, fallback: number): number {
  const date = Date.parse(header(headers, 'date') ?? '');
  return Number.isNaN(date) ? fallback : date;
}

/** Validators for a conditional request, from a stored copy's ETag and Last-Modified. */
export function conditionalHeaders(validators: { etag: string | null; lastModified: string | null }): Record<string, string> {
  const out: Record<string, string> = {};
  if (validators.etag) out['if-none-match'] = validators.etag;
  if (validators.lastModified) out['if-modified-since'] = validators.lastModified;
  return out;
}

export function validatorsOf(headers: Headers): { etag: string | null; lastModified: string | null } {
  return { etag: header(headers, 'etag') ?? null, lastModified: header(headers, 'last-modified') ?? null };
}
