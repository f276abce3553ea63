import type { Clock } from '../clock.js';
import type { SigningSecrets } from '../accounts/signing-secret.js';
import { sign, SIGNATURE_HEADER, type GuardedClient, type OutboundResponse } from '../net/index.js';

export type CustomerPayload =
  | { kind: 'json'; body: Record<string, unknown> }
  | { kind: 'form'; body: Record<string, string> };

export interface CustomerRequest {
  accountId: number;
  url: string;
  method: 'POST' | 'GET';
  payload: CustomerPayload;
  headers?: Record<string, string>;
  timeoutMs: number;
}

function encodeForm(body: Record<string, string>): string {
  return new URLSearchParams(body).toString();
}

/**
 * Every request the platform makes to an account's own URLs (number webhooks, markup actions, status and
 * recording callbacks) goes through here: SSRF-guarded, time-boxed and signed with the account's secret.
 * POST signs "<t>.<body>"; GET carries the fields in the query string and signs "<t>.<query string>".
 */
export class CustomerHttp {
  constructor(private readonly client: GuardedClient, private readonly secrets: SigningSecrets, private readonly clock: Clock) {}

  /** The signature header value for a request made outside this client (a media stream's WebSocket upgrade: a GET). */
  async signatureFor(accountId: number, signed: string): Promise<string> {
    return sign(await this.secrets.get(accountId), signed, Math.floor(this.clock.now() / 1000));
  }

  async send(req: CustomerRequest): Promise<OutboundResponse> {
    const text = req.payload.kind === 'json' ? JSON.stringify(req.payload.body) : encodeForm(req.payload.body);
    const t = Math.floor(this.clock.now() / 1000);
    const signature = sign(await this.secrets.get(req.accountId), req.method === 'GET' ? queryOf(req.payload) : text, t);
    const headers: Record<string, string> = { 'user-agent': 'Ringbase/0.1', ...req.headers, [SIGNATURE_HEADER]: signature };
    if (req.method === 'GET') {
      const url = new URL(req.url);
      for (const [k, v] of new URLSearchParams(queryOf(req.payload))) url.searchParams.append(k, v);
      return this.client.request(url.toString(), { method: 'GET', headers, timeoutMs: req.timeoutMs });
    }
    headers['content-type'] = req.payload.kind === 'json' ? 'application/json' : 'application/x-www-form-urlencoded';
    return this.client.request(req.url, { method: 'POST', headers, body: text, timeoutMs: req.timeoutMs });
  }
}

function queryOf(payload: CustomerPayload): string {
  const flat: Record<string, string> = {};
  for (const [k, v] of Object.entries(payload.body)) flat[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return encodeForm(flat);
}
