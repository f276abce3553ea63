// Answering-machine detection on the real engines: each answer of the corpus (test/helpers/amd-corpus.ts: people,
// machines ending in a beep or in silence, fax tones; voices, noise, level changes) is what a far end says once it
// answers an outbound API call with machine_detection (PCMU in 20 ms packets from the test's own RTP socket, from the
// answer on, as a phone talks). The issue's bar: at least 90 % classified right, and machine_end_beep within 500 ms of
// the beep's end, measured between the far end's clock (when it sent the beep's last packet) and the timeline entry.
import t, { type Test } from 'tap';
import { enginesOrSkip } from '../../helpers/engines.js';
import { speechToolsMissing } from '../../helpers/speech-audio.js';
import { answerCorpus, type Answer } from '../../helpers/amd-corpus.js';
import { realDrivers, type RealDriver } from '../../engine-suite/real-driver.js';
import { final, scene } from '../../engine-suite/flows.js';
import { callFarEnd } from './support/far-end-call.js';

/** Calls at once: the corpus takes a minute this way rather than three. */
const AT_ONCE = 4;

interface Heard { name: string; enable: string; messageEnd: string; right: { enable: boolean; messageEnd: boolean }; beepLateMs: number | null }

/** One answer over a real call: the decisions on the call's timeline, and how late a beep's end was reported. */
async function overCall(t: Test, d: RealDriver, answer: Answer, n: number): Promise<Heard> {
  const { sid, media } = await callFarEnd(t, d, { number: `+1555000${String(4000 + n)}`, name: `amd-${n}` }, answer.audio,
    { markup: '<Response><Hangup/></Response>', machine_detection: 'detect_message_end' });
  await final(d, sid);
  const decisions = (await d.h.store.calls.timeline(sid)).filter((e) => e.kind === 'machine-detection');
  const first = String(decisions[0]?.detail.answered_by ?? 'nothing');
  const last = decisions.at(-1);
  const messageEnd = String(last?.detail.answered_by ?? 'nothing');
  // detect_message_end says a machine's start first; a beep before it ends detection at once (enable mode: machine_start).
  const enable = first.startsWith('machine_') ? 'machine_start' : first;
  const beepLateMs = answer.beepEndMs !== undefined && messageEnd === 'machine_end_beep'
    ? Date.parse(last!.at) - (media.firstSentAt()! + answer.beepEndMs) : null;
  return { name: answer.name, enable, messageEnd, right: { enable: enable === answer.expect.enable, messageEnd: messageEnd === answer.expect.messageEnd }, beepLateMs };
}

const bins = enginesOrSkip(t);
const missing = speechToolsMissing();
if (bins) {
  t.setTimeout(10 * 60_000);
  const make = realDrivers(t, bins);
  t.test('answering-machine detection over the corpus, on real calls', { skip: missing ?? false }, async (t) => {
    const d = await make(t);
    await scene(t, d);
    const answers = answerCorpus();
    const heard: Heard[] = [];
    for (let i = 0; i < answers.length; i += AT_ONCE) {
      heard.push(...await Promise.all(answers.slice(i, i + AT_ONCE).map((a, k) => overCall(t, d, a, i + k))));
    }
    for (const mode of ['enable', 'messageEnd'] as const) {
      const wrong = heard.filter((h) => !h.right[mode]);
      const right = heard.length - wrong.length;
      t.ok(right / heard.length >= 0.9, `${mode === 'enable' ? 'enable' : 'detect_message_end'}: ${right} of ${heard.length} right (${((right / heard.length) * 100).toFixed(0)} %)${
        wrong.length ? `; wrong: ${wrong.map((h) => `${h.name}: ${mode === 'enable' ? h.enable : h.messageEnd}`).join(' | ')}` : ''}`);
    }
    const late = heard.flatMap((h) => (h.beepLateMs === null ? [] : [h.beepLateMs]));
    t.ok(late.length > 0 && late.every((ms) => ms <= 500), `machine_end_beep within 500 ms of the beep's end (${late.map((ms) => Math.round(ms)).join(', ')} ms)`);
  });
}
