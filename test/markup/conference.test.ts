// <Dial><Conference> and its JSON forms: every attribute with its default, and each bad value refused with its
// code and position.
import t from 'tap';
import { parseMarkup, MarkupError } from '../../src/markup/index.js';

const DEFAULTS = {
  type: 'conference', muted: false, beep: 'true', startConferenceOnEnter: true, endConferenceOnExit: false, waitMethod: 'POST',
  maxParticipants: 250, record: 'do-not-record', statusCallbackMethod: 'POST', statusCallbackEvent: [],
};

const issues = (src: string, format: 'xml' | 'json' = 'xml') => {
  try {
    parseMarkup(src, format);
    return [];
  } catch (err) {
    if (!(err instanceof MarkupError)) throw err;
    return err.issues.map((i) => `${i.code} ${i.path ?? `${i.line}:${i.column}`}`);
  }
};

t.test('XML: defaults, every attribute, and Twilio\'s callback default', async (t) => {
  t.same(parseMarkup('<Response><Dial><Conference>Room 1</Conference></Dial></Response>', 'xml'), [
    { verb: 'dial', timeout: 30, method: 'POST', record: 'do-not-record', targets: [{ ...DEFAULTS, name: 'Room 1' }] },
  ]);
  const [dial] = parseMarkup(`<Response><Dial action="/after"><Conference muted="true" beep="onExit" startConferenceOnEnter="false"
    endConferenceOnExit="true" waitUrl="/wait.mp3" waitMethod="GET" maxParticipants="3" record="record-from-start"
    statusCallback="https://hooks.example.com/c" statusCallbackMethod="GET" statusCallbackEvent="join leave mute"
    coach="CA0123456789abcdef0123456789abcdef">Team</Conference></Dial></Response>`, 'xml');
  t.same(dial, {
    verb: 'dial', timeout: 30, action: '/after', method: 'POST', record: 'do-not-record',
    targets: [{
      type: 'conference', name: 'Team', muted: true, beep: 'onExit', startConferenceOnEnter: false, endConferenceOnExit: true,
      waitUrl: '/wait.mp3', waitMethod: 'GET', maxParticipants: 3, record: 'record-from-start', statusCallback: 'https://hooks.example.com/c',
      statusCallbackMethod: 'GET', statusCallbackEvent: ['join', 'leave', 'mute'], coach: 'CA0123456789abcdef0123456789abcdef',
    }],
  });
  const [withCallback] = parseMarkup('<Response><Dial><Conference statusCallback="https://h.example.com/c">R</Conference></Dial></Response>', 'xml');
  t.same((withCallback as { targets: Array<{ statusCallbackEvent: string[] }> }).targets[0]!.statusCallbackEvent, ['start', 'end'], 'a callback without events hears start and end');
});

t.test('JSON: the shortcut and the full target', async (t) => {
  t.same(parseMarkup('[{"verb":"dial","conference":"Room 1"}]', 'json'), [
    { verb: 'dial', timeout: 30, method: 'POST', record: 'do-not-record', targets: [{ ...DEFAULTS, name: 'Room 1' }] },
  ]);
  const [dial] = parseMarkup('[{"verb":"dial","targets":[{"type":"conference","name":"R","muted":true,"maxParticipants":10}]}]', 'json');
  t.match(dial, { targets: [{ ...DEFAULTS, name: 'R', muted: true, maxParticipants: 10 }] });
});

t.test('bad values are refused with their code and position', async (t) => {
  const bad: Array<[string, string[]]> = [
    ['<Response><Dial><Conference muted="yes">R</Conference></Dial></Response>', ['invalid_attribute 1:29']],
    ['<Response><Dial><Conference beep="loud">R</Conference></Dial></Response>', ['invalid_attribute 1:29']],
    ['<Response><Dial><Conference maxParticipants="1">R</Conference></Dial></Response>', ['invalid_attribute 1:29']],
    ['<Response><Dial><Conference maxParticipants="251">R</Conference></Dial></Response>', ['invalid_attribute 1:29']],
    ['<Response><Dial><Conference record="always">R</Conference></Dial></Response>', ['invalid_attribute 1:29']],
    ['<Response><Dial><Conference statusCallbackEvent="start finish">R</Conference></Dial></Response>', ['invalid_attribute 1:29']],
    ['<Response><Dial><Conference coach="bob">R</Conference></Dial></Response>', ['invalid_attribute 1:29']],
    ['<Response><Dial><Conference waitUrl="javascript:alert(1)">R</Conference></Dial></Response>', ['invalid_attribute 1:29']],
    ['<Response><Dial><Conference colour="red">R</Conference></Dial></Response>', ['unknown_attribute 1:29']],
    ['<Response><Dial><Conference></Conference></Dial></Response>', ['missing_text 1:17']],
    ['<Response><Dial><Client>a</Client><Conference>R</Conference></Dial></Response>', ['invalid_nesting 1:11']],
    ['<Response><Conference>R</Conference></Response>', ['invalid_nesting 1:11']],
  ];
  for (const [src, expected] of bad) t.same(issues(src), expected, src);
  t.same(issues('[{"verb":"dial","targets":[{"type":"conference","name":"R","muted":"true"}]}]', 'json'), ['invalid_attribute $[0].targets[0].muted']);
  t.same(issues('[{"verb":"dial","targets":[{"type":"conference","name":"R"},{"type":"number","number":"+15551234567"}]}]', 'json'), ['invalid_nesting $[0].targets']);
});
