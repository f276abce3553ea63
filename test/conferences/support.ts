// A sandbox app served over real TLS (self-signed), with the account, numbers and helpers the conference tests
// share: requests with form or JSON bodies, waiting for participant states, and the sandbox's who-hears-whom.
import { Agent, fetch as undiciFetch } from 'undici';
import { NumberService } from '../../src/numbers/service.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { until } from '../helpers/waits.js';
import type { SandboxEngine } from '../../src/engine/sandbox/index.js';

export const FROM = '+15550001000';

export interface ConferenceScene {
  h: Harness;
  account: { id: number; key: string };
  /** A request over https; `form` bodies are form-encoded (as the spec sends them), `json` ones JSON. */
  call(method: string, path: string, o?: { form?: Record<string, string>; json?: unknown; key?: string }): Promise<{ status: number; body: any }>;
  /** Adds a participant by conference sid or name and waits until it is in the room. */
  join(ref: string, to: string, extra?: Record<string, string>): Promise<{ confSid: string; callSid: string; line: string }>;
  /** GET over https returning the raw bytes (recording downloads). */
  download(path: string): Promise<{ status: number; bytes: Buffer }>;
  /** The participant as the API shows it. */
  participant(confSid: string, callSid: string): Promise<any>;
  /** The participant's status in the store (for waits: polling the API would spend the key's rate limit). */
  statusOf(confSid: string, callSid: string): Promise<string | undefined>;
  hears(confSid: string, listener: string, speaker: string): boolean;
}

export async function conferenceScene(t: { teardown(fn: () => unknown): void }, env: Record<string, string> = {}): Promise<ConferenceScene> {
  const h = await startHarness(t, { env: { RINGBASE_TLS_SELF_SIGNED: '1', RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1', ...env } });
  const account = await h.account();
  await h.store.orgSettings.allowHost(account.id, '127.0.0.1');
  await new NumberService(h.store.numbers, { allowLocalTargets: true }).add(FROM, account.id, {});
  const port = (h.app.http.server.address() as { port: number }).port;
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
  t.teardown(() => dispatcher.close());
  const engine = h.engine as unknown as SandboxEngine;

  const scene: ConferenceScene = {
    h, account,
    async call(method, path, o = {}) {
      const headers: Record<string, string> = { authorization: `Bearer ${o.key ?? account.key}` };
      let body: string | undefined;
      if (o.form) { headers['content-type'] = 'application/x-www-form-urlencoded'; body = new URLSearchParams(o.form).toString(); }
      if (o.json !== undefined) { headers['content-type'] = 'application/json'; body = JSON.stringify(o.json); }
      const res = await undiciFetch(`https://127.0.0.1:${port}${path}`, { method, headers, body, dispatcher });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    async download(path) {
      const res = await undiciFetch(`https://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${account.key}` }, dispatcher });
      return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
    },
    async participant(confSid, callSid) {
      const list = await scene.call('GET', `/v1/conferences/${confSid}/participants`);
      return list.body.participants.find((p: { call_sid: string }) => p.call_sid === callSid);
    },
    async join(ref, to, extra = {}) {
      const res = await scene.call('POST', `/v1/conferences/${encodeURIComponent(ref)}/participants`, { form: { from: FROM, to, ...extra } });
      if (res.status !== 201) throw new Error(`add participant: ${res.status} ${JSON.stringify(res.body)}`);
      const { conference_sid: confSid, call_sid: callSid } = res.body;
      await until(`${to} in the room`, 5_000, async () => (await scene.statusOf(confSid, callSid)) === 'in-progress');
      const line = engine.partyCalls(to).at(-1)!.id;
      return { confSid, callSid, line };
    },
    statusOf: async (confSid, callSid) => (await h.store.conferences.participant(confSid, callSid))?.status,
    hears: (confSid, listener, speaker) => engine.rooms.hears(confSid, listener, speaker),
  };
  return scene;
}
