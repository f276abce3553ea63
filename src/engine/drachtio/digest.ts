// Server-side SIP digest authentication (RFC 2617/3261, MD5, qop=auth or none). Nonces are stateless: a
// timestamp signed with a key, so a challenge needs no table. The key is derived from the master key, so every
// control plane of a cluster accepts the nonces of the others (drachtio-server may hand a challenge's answer to
// another node than the one that sent the challenge); without one, a key of this process's own.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const NONCE_TTL_MS = 5 * 60_000;
const md5 = (s: string) => createHash('md5').update(s).digest('hex');

export interface DigestCredentials {
  username: string;
  realm: string;
  nonce: string;
  uri: string;
  response: string;
  qop?: string;
  nc?: string;
  cnonce?: string;
}

/** Parses `Digest k="v", k=v, ...`; null when the header is not a digest answer. */
export function parseDigest(header: string | undefined): DigestCredentials | null {
  if (!header || !/^\s*digest\s/i.test(header)) return null;
  const fields: Record<string, string> = {};
  for (const m of header.replace(/^\s*digest\s+/i, '').matchAll(/([a-zA-Z-]+)\s*=\s*(?:"([^"]*)"|([^\s,]+))/g)) {
    fields[m[1]!.toLowerCase()] = m[2] ?? m[3] ?? '';
  }
  const { username, realm, nonce, uri, response } = fields;
  if (!username || realm === undefined || !nonce || !uri || !response) return null;
  return { username, realm, nonce, uri, response, qop: fields.qop, nc: fields.nc, cnonce: fields.cnonce };
}

export class DigestAuthority {
  constructor(readonly realm: string, private readonly now: () => number = Date.now, private readonly key: Buffer = randomBytes(32)) {}

  /** The value of a WWW-Authenticate / Proxy-Authenticate header. */
  challenge(): string {
    const ts = this.now().toString(36);
    const nonce = `${ts}.${this.#sign(ts)}`;
    return `Digest realm="${this.realm}", nonce="${nonce}", algorithm=MD5, qop="auth"`;
  }

  /** Whether `creds` prove knowledge of `password` for this request; 'stale' (old or foreign nonce) earns a new challenge. */
  verify(creds: DigestCredentials, method: string, password: string): 'ok' | 'stale' | 'wrong' {
    if (creds.realm !== this.realm || !this.#freshNonce(creds.nonce)) return 'stale';
    const ha1 = md5(`${creds.username}:${creds.realm}:${password}`);
    const ha2 = md5(`${method}:${creds.uri}`);
    const expected = creds.qop
      ? md5(`${ha1}:${creds.nonce}:${creds.nc ?? ''}:${creds.cnonce ?? ''}:${creds.qop}:${ha2}`)
      : md5(`${ha1}:${creds.nonce}:${ha2}`);
    const a = Buffer.from(expected);
    const b = Buffer.from(creds.response.toLowerCase());
    return a.length === b.length && timingSafeEqual(a, b) ? 'ok' : 'wrong';
  }

  #sign(ts: string): string {
    return createHmac('sha256', this.key).update(ts).digest('hex').slice(0, 32);
  }

  #freshNonce(nonce: string): boolean {
    const [ts, sig] = nonce.split('.');
    if (!ts || !sig || sig !== this.#sign(ts)) return false;
    const age = this.now() - parseInt(ts, 36);
    return age >= 0 && age < NONCE_TTL_MS;
  }
}
