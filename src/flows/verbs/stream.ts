import type { ConnectVerb, StartVerb, StopVerb } from '../../markup/index.js';
import { addFork, forkCount, isForkRunning, MAX_FORKS_PER_CALL, stopFork } from '../../streams/forks.js';
import { describeEnd, startStream } from '../../streams/start.js';
import { followAction, resolveUrl, type Flow, type Outcome } from '../flow.js';
import { onAbort } from '../../waits.js';

const callbackOf = (flow: Flow, ref: string | undefined): string | null => (ref ? resolveUrl(flow, ref) : null);

/** Bidirectional: the verb lasts until the peer closes (or the call ends); `action` then hears how it ended. */
export async function connectVerb(flow: Flow, verb: ConnectVerb): Promise<Outcome> {
  const { session } = flow;
  const started = await startStream(session, { stream: verb.stream, mode: 'bidirectional', statusCallback: callbackOf(flow, verb.stream.statusCallback) });
  // A redirect stops the stream (as a <Stop> would) and the new document takes the call.
  const { signal } = session.document;
  const redirected = () => { if (started.ok) void started.stream.stop(); };
  const stopWatching = onAbort(signal, redirected);
  const end = started.ok ? await started.stream.ended : null;
  stopWatching();
  return followAction(flow, 'connect action', verb.action, verb.method, {
    call_sid: session.sid,
    stream_sid: started.ok ? started.stream.sid : null,
    stream_status: end ? (end.reason === 'peer-closed' ? 'completed' : end.reason) : 'failed',
    ...(started.ok ? {} : { stream_error: started.reason }),
    ...(end && end.reason !== 'peer-closed' && end.reason !== 'call-ended' ? { stream_error: describeEnd(end) } : {}),
  });
}

/** A listen-only fork: started, then the call goes on at once. */
export async function startVerb(flow: Flow, verb: StartVerb): Promise<Outcome> {
  const { session } = flow;
  if (verb.stream.name !== undefined && isForkRunning(session, verb.stream.name)) {
    session.timeline('stream-error', { name: verb.stream.name, reason: 'a stream of that name is already running' });
    return { kind: 'next' };
  }
  if (forkCount(session) >= MAX_FORKS_PER_CALL) {
    session.timeline('stream-error', { name: verb.stream.name ?? null, reason: `a call may run at most ${MAX_FORKS_PER_CALL} forked streams at once` });
    return { kind: 'next' };
  }
  const started = await startStream(session, { stream: verb.stream, mode: 'fork', statusCallback: callbackOf(flow, verb.stream.statusCallback) });
  if (started.ok) addFork(session, verb.stream.name ?? started.stream.sid, started.stream);
  return { kind: 'next' };
}

export async function stopVerb(flow: Flow, verb: StopVerb): Promise<Outcome> {
  if (!(await stopFork(flow.session, verb.name))) flow.session.timeline('stream-error', { name: verb.name, reason: 'no running stream of that name' });
  return { kind: 'next' };
}
