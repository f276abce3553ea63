// Timelines for people: every kind the call flows write reads as a sentence (no slugs, no JSON), and the
// waterfall's steps (spans and instants) come out of a timeline in the right places.
import t from 'tap';
import { describeEvent } from '../../src/http/dashboard/views/timeline.js';
import { stepsOf, waterfall } from '../../src/http/dashboard/views/waterfall.js';
import type { TimelineEntry } from '../../src/store/calls.js';

const T0 = Date.parse('2026-01-01T10:00:00.000Z');
let id = 0;
const entry = (ms: number, kind: string, detail: Record<string, unknown> = {}): TimelineEntry => ({ id: ++id, at: new Date(T0 + ms).toISOString(), kind, detail });

t.test('every kind is a sentence', async (t) => {
  const samples: Array<[string, Record<string, unknown>, RegExp]> = [
    ['webhook-request', { method: 'POST', url: 'https://a.example/voice' }, /^Asked the webhook for instructions \(POST https:\/\/a\.example\/voice\)$/],
    ['webhook-reply', { status: 200, latency_ms: 212, bytes: 80 }, /^Webhook answered with HTTP 200 in 212 ms, 80 bytes$/],
    ['webhook-reply', { error: 'connection refused' }, /^Webhook failed: connection refused$/],
    ['markup-error', { url: 'u', issues: ['line 1:5: expected a closing tag', 'unknown verb Foo'] }, /could not be used: line 1:5: expected a closing tag; unknown verb Foo$/],
    ['verb', { verb: 'say' }, /^Speaking a prompt$/],
    ['verb', { verb: 'stream' }, /^Running stream$/],
    ['digits', { digits: '1', reason: 'numDigits' }, /^Caller pressed 1$/],
    ['digits', { digits: '', reason: 'timeout' }, /^No keys pressed \(timeout\)$/],
    ['ivr-key', { key: '2', round: 1 }, /^Caller chose 2 in the menu$/],
    ['status-callback', { event: 'completed', status: 204, latency_ms: 9 }, /^Status callback for "completed" answered with HTTP 204 in 9 ms$/],
    ['routing', { decision: 'after-hours', action: 'hangup' }, /^After hours: the call is refused$/],
    ['ended', { status: 'completed', cause: 'application-error', by: 'local' }, /^Call ended after an application error, by the platform$/],
    ['ended', { status: 'completed', cause: 'caller-hangup', by: 'remote' }, /^Call ended when the caller hung up, by the caller$/],
    ['ended', { status: 'failed', cause: 'something-new', by: 'local' }, /^Call ended \(something-new\), by the platform$/],
    ['dial', { targets: [{ call_sid: 'CA1', to: '+15550002000' }, { call_sid: 'CA2', to: 'sip:bob@example.com' }] }, /^Dialling \+15550002000, sip:bob@example.com$/],
    ['dial-answered', { call_sid: 'CA1' }, /^The dialled party answered; the calls are connected$/],
    ['dial-time-limit', { call_sid: 'CA1', seconds: 90 }, /^The dialled call reached its time limit \(90 s\) and was hung up$/],
    ['webhook-fallback', { url: 'https://b.example/fb', error_url: 'https://a.example/voice', error_reason: 'webhook answered HTTP 500' },
      /^The webhook was unavailable \(webhook answered HTTP 500\): asked the fallback URL https:\/\/b\.example\/fb$/],
    ['ended-by-request', { cause: 'api-hangup' }, /^A request hung up the call$/],
    ['ended', { status: 'completed', cause: 'api-hangup', by: 'local' }, /^Call ended by a request to hang it up, by the platform$/],
    ['recording-completed', { recording_sid: 'RE1', duration_ms: 4200 }, /^Recording completed \(4\.2 s\)$/],
    ['media-ready', { url: 'x', via: 'cache', latency_ms: 3 }, /^Media ready$/],
    ['speech', { recognizer: 'pocketsphinx', text: 'billing', confidence: null, heard_ms: 900, recognized_ms: 240 }, /^Caller said “billing” \(pocketsphinx, recognized in 240 ms\)$/],
    ['speech', { recognizer: 'openai-compatible', text: '', confidence: null, heard_ms: 900, recognized_ms: 240 }, /^Caller spoke, but no words were recognized \(openai-compatible\)$/],
    ['speech-no-input', { timeout_seconds: 5 }, /^Nothing said within 5 s$/],
    ['voice-ready', { voice: 'alloy', via: 'rendered', latency_ms: 412 }, /^Voice alloy: rendered by the account's speech endpoint in 412 ms$/],
    ['voice-ready', { voice: 'alloy', via: 'hit', latency_ms: 1 }, /^Voice alloy: played from the prompt cache$/],
    ['voice-failed', { voice: 'nova', reason: 'the speech endpoint answered 500' }, /^Voice nova failed \(the speech endpoint answered 500\): spoken in the default voice$/],
    ['speech-error', { reason: 'timeout', message: 'the transcription endpoint did not answer within 10 s' }, /^Speech could not be recognized \(timeout\): the transcription endpoint did not answer within 10 s$/],
    ['machine-detection', { answered_by: 'machine_end_beep', after_ms: 5300 }, /^Answering-machine detection: machine_end_beep$/],
  ];
  for (const [kind, detail, want] of samples) t.match(describeEvent(kind, detail), want, kind);
});

t.test('the waterfall: spans and instants on one axis', async (t) => {
  const entries = [
    entry(0, 'routing', { decision: 'webhook' }),
    entry(0, 'webhook-request', { method: 'POST', url: 'u' }),
    entry(212, 'webhook-reply', { status: 200, latency_ms: 212 }),
    entry(220, 'verb', { verb: 'gather' }),
    entry(230, 'answered'),
    entry(1500, 'digits', { digits: '1' }),
    entry(1510, 'verb', { verb: 'dial' }),
    entry(1520, 'dial', { targets: [{ call_sid: 'CA1', to: '+15550002000' }] }),
    entry(4520, 'dial-answered', { call_sid: 'CA1' }),
    entry(9000, 'ended', { cause: 'dial-done', by: 'local' }),
    entry(9040, 'status-callback', { event: 'completed', status: 200, latency_ms: 30 }),
  ];
  const steps = stepsOf(entries).map((s) => [s.kind, s.label, s.start - T0, s.end - T0]);
  t.same(steps, [
    ['webhook', 'Webhook 200 in 212 ms', 0, 212],
    ['prompt', 'Waiting for keys', 220, 1510],
    ['call', 'Connected', 230, 9000],
    ['keys', 'Caller pressed 1', 1500, 1500],
    ['call', 'Dialling +15550002000', 1520, 4520],
    ['call', 'Bridged to the dialled party', 4520, 4520],
    ['call', 'Hung up after the dialled call', 9000, 9000],
    ['callback', 'Status callback for "completed" answered with HTTP 200 in 30 ms', 9010, 9040],
  ]);
  const svg = waterfall(entries).value;
  t.match(svg, /aria-label="Waterfall of the call: 8 steps over 9\.0 s"/);
  t.match(svg, /<rect x="0\.00%" width="2\.35%"/, 'the first fetch: 212 ms of 9.04 s');
  t.notMatch(svg, /NaN|Infinity|style=/);
  t.match(waterfall([entry(0, 'routing', { decision: 'ivr' })]).value, /Nothing to draw/, 'a timeline with no steps says so');
});
