// The ACD's test helpers for every engine: API requests as a client over https sends them, event subscriptions read
// as the subscriber gets them, a queue staffed with agents on seats of their own, an agent's row.
import type { EngineDriver } from './driver.js';
import { makeTrunk, type Scene } from './flows.js';
import { createSecretBox } from '../../src/crypto/secret-box.js';
import type { EventType } from '../../src/events/lifecycle.js';
import { operatorToken } from '../../src/operator-token.js';

export function v1(d: EngineDriver, method: string, path: string, body?: Record<string, unknown>) {
  return d.h.request(method, path, { ...(body ? { body } : {}), headers: { 'x-forwarded-proto': 'https' } });
}

/** /metrics with the per-account series: they need the operator token (docs/security.md). */
export const operatorMetrics = (d: EngineDriver) =>
  d.h.request('GET', '/metrics', { key: null, headers: { authorization: `Bearer ${operatorToken(d.h.dataDir, false)}` } });

/** Every ACD event of the account goes to the scene's webhook app at /events/<type>. */
export async function subscribe(d: EngineDriver, s: Scene, types: EventType[]): Promise<void> {
  await d.h.store.orgSettings.allowHost(s.accountId, '127.0.0.1');
  for (const eventType of types) {
    s.app.on(`/events/${eventType}`, { body: '' });
    await d.h.store.webhookSubscriptions.create({
      accountId: s.accountId, eventType, targetUrl: `${s.app.url}/events/${eventType}`, deliveryMode: 'async',
      timeoutMs: 5_000, maxRetries: 0, secretSealed: createSecretBox(d.h.masterKey).seal('whsec_test'), payloadTemplate: null,
    });
  }
}

export const eventData = async (s: Scene, type: EventType, n = 1) => {
  await s.app.waitFor(`/events/${type}`, n);
  return s.app.requests.filter((r) => r.path === `/events/${type}`).map((r) => r.json.data as Record<string, unknown>);
};

/** A queue, and agents on seats of their own, available; each seat answers (or not) as planned. */
export async function staff(d: EngineDriver, queue: Record<string, unknown>, seats: Array<'answer' | 'no-answer'>, talkMs = 3_000) {
  const q = await v1(d, 'POST', '/v1/queues', queue);
  if (q.status !== 201) throw new Error(JSON.stringify(q.body));
  const agents: Array<{ sid: string; endpointName: string }> = [];
  for (const [i, behavior] of seats.entries()) {
    const trunk = await makeTrunk(d, { transport: 'udp' });
    await d.agentSeat(trunk, { behavior, hangupAfterMs: talkMs });
    const a = await v1(d, 'POST', '/v1/agents', { friendly_name: `Agent ${i}`, trunk_id: trunk.id, queues: [queue.friendly_name] });
    agents.push({ sid: a.body.sid as string, endpointName: trunk.endpointName });
  }
  for (const a of agents) await v1(d, 'POST', `/v1/agents/${a.sid}`, { status: 'available' });
  return { queueSid: q.body.sid as string, agents };
}

export const agent = async (d: EngineDriver, sid: string) => (await d.h.store.sql.one<{ activity: string; status: string; break_reason: string | null; current_call_sid: string | null }>(
  'SELECT * FROM acd_agents WHERE sid = ?', [sid]))!;
