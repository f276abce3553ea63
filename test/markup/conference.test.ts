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
    { verb: 'dial', timeout: 30, method: 'POST', record: 'do-not-record', ringTone: 'us', hangupOnStar: false, answerOnBridge: false, targets: [{ ...DEFAULTS, name: 'Room 1' }] },
  ]);
  const [dial] = parseMarkup(`<Response><Dial action="/after"><Conference muted="true" beep="onExit" startConferenceOnEnter="false"
    endConferenceOnExit="true" waitUrl="/wait.mp3" waitMethod="GET" maxParticipants="3" record="record-from-start"
    statusCallback="https://hooks.example.com/c" statusCallbackMethod="GET" statusCallbackEvent="join leave mute"
    coach="CA0123456789abcdef0123456789abcdef">Team</Conference></Dial></Response>`, 'xml');
  t.same(dial, {
    verb: 'dial', timeout: 30, action: '/after', method: 'POST', record: 'do-not-record', ringTone: 'us', hangupOnStar: false, answerOnBridge: false,
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
    { verb: 'dial', timeout: 30, method: 'POST', record: 'do-not-record', ringTone: 'us', hangupOnStar: false, answerOnBridge: false, targets: [{ ...DEFAULTS, name: 'Room 1' }] },
  ]);
  const [dial] = parseMarkup('[{"verb":"dial","targets":[{"type":"conference","name":"R","muted":true,"maxParticipants":10}]}]', 'json');
  t.match(dial, { targets: [{ ...DEFAULTS, name: 'R', muted: true, maxParticipants: 10 }] });
  const full = JSON.stringify([{
    verb: 'dial', action: '/after', targets: [{
      type: 'conference', name: 'Team', muted: true, beep: false, startConferenceOnEnter: false, endConferenceOnExit: true,
      waitUrl: '/wait.mp3', waitMethod: 'GET', maxParticipants: 2, record: 'record-from-start', statusCallback: 'https://hooks.example.com/c',
      statusCallbackMethod: 'GET', statusCallbackEvent: ['hold', 'start'], coach: 'CA0123456789abcdef0123456789abcdef',
    }],
  }]);
  t.same(parseMarkup(full, 'json'), [{
    verb: 'dial', timeout: 30, action: '/after', method: 'POST', record: 'do-not-record', ringTone: 'us', hangupOnStar: false, answerOnBridge: false,
    targets: [{
      type: 'conference', name: 'Team', muted: true, beep: 'false', startConferenceOnEnter: false, endConferenceOnExit: true,
      waitUrl: '/wait.mp3', waitMethod: 'GET', maxParticipants: 2, record: 'record-from-start', statusCallback: 'https://hooks.example.com/c',
      statusCallbackMethod: 'GET', statusCallbackEvent: ['hold', 'start'], coach: 'CA0123456789abcdef0123456789abcdef',
    }],
  }], 'every field; beep takes a JSON boolean and the events a JSON array');
  const target = (fields: string) => (parseMarkup(`[{"verb":"dial","targets":[{"type":"conference","name":"R",${fields}}]}]`, 'json')[0] as { targets: unknown[] }).targets[0];
  t.match(target('"beep":"onEnter","statusCallbackEvent":"join  leave"'), { beep: 'onEnter', statusCallbackEvent: ['join', 'leave'] }, 'the XML spellings work in JSON too');
  t.match(target('"statusCallback":"https://h.example.com/c"'), { statusCallbackEvent: ['start', 'end'] });
});

t.test('the Dial keeps its own attributes around a conference', async (t) => {
  const [dial] = parseMarkup('<Response><Dial timeout="10" callerId="+15557654321" record="record-from-answer" method="GET"><Conference>R</Conference></Dial></Response>', 'xml');
  t.match(dial, { timeout: 10, callerId: '+15557654321', record: 'record-from-answer', method: 'GET', targets: [{ type: 'conference', name: 'R' }] });
});

t.test('conference names: printable, 1-128 characters, trimmed', async (t) => {
  t.match(parseMarkup(`<Response><Dial><Conference>  Sales &amp; "Support" é 1 </Conference></Dial></Response>`, 'xml'), [{ targets: [{ name: 'Sales & "Support" é 1' }] }]);
  t.match(parseMarkup(`<Response><Dial><Conference>${'n'.repeat(128)}</Conference></Dial></Response>`, 'xml'), [{ targets: [{ name: 'n'.repeat(128) }] }]);
  t.same(issues(`<Response><Dial><Conference>${'n'.repeat(129)}</Conference></Dial></Response>`), ['invalid_text 1:17']);
  t.same(issues('<Response><Dial><Conference>a&#9;b</Conference></Dial></Response>'), ['invalid_text 1:17'], 'a tab inside');
  t.same(issues('<Response><Dial><Conference>a&#127;b</Conference></Dial></Response>'), ['invalid_text 1:17'], 'DEL inside');
  t.same(issues('[{"verb":"dial","conference":"a\\u0000b"}]', 'json'), ['invalid_attribute $[0].conference']);
  t.same(issues('[{"verb":"dial","conference":"   "}]', 'json'), ['invalid_attribute $[0].conference']);
  t.same(issues('[{"verb":"dial","targets":[{"type":"conference"}]}]', 'json'), ['missing_attribute $[0].targets[0]']);
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

t.test('every bad attribute is one issue at its own position', async (t) => {
  const bad: Array<[string, string]> = [
    ['muted', 'TRUE'], ['beep', 'yes'], ['startConferenceOnEnter', '1'], ['endConferenceOnExit', 'no'], ['waitUrl', 'file:///etc/passwd'],
    ['waitMethod', 'PUT'], ['maxParticipants', '2.5'], ['maxParticipants', '-3'], ['record', 'record-from-answer'],
    ['statusCallback', 'ftp://h.example.com/c'], ['statusCallbackMethod', 'post '.repeat(2)], ['statusCallbackEvent', ''],
    ['statusCallbackEvent', 'join join'], ['statusCallbackEvent', 'speaker'], ['coach', 'CA0123456789ABCDEF0123456789ABCDEF'],
    ['coach', 'CF0123456789abcdef0123456789abcdef'], ['coach', 'CA0123'],
  ];
  for (const [name, value] of bad) {
    // Line 2, after another attribute, so the position is the attribute's own and not the element's.
    const before = name === 'muted' ? 'beep="false"' : 'muted="true"';
    const src = `<Response><Dial>\n  <Conference ${before} ${name}="${value}">R</Conference></Dial></Response>`;
    t.same(issues(src), ['invalid_attribute 2:28'], `${name}="${value}"`);
  }
  const json: Array<[string, unknown]> = [
    ['muted', 'true'], ['beep', 1], ['startConferenceOnEnter', 'false'], ['endConferenceOnExit', null], ['maxParticipants', '10'],
    ['maxParticipants', 300], ['statusCallbackEvent', []], ['statusCallbackEvent', ['start end']], ['statusCallbackEvent', ['join', 'join']],
    ['statusCallbackEvent', [1]], ['statusCallbackEvent', { start: true }], ['coach', 'bob'], ['waitUrl', 'javascript:alert(1)'],
    ['record', true],
  ];
  for (const [name, value] of json) {
    const src = JSON.stringify([{ verb: 'dial', targets: [{ type: 'conference', name: 'R', [name]: value }] }]);
    t.same(issues(src, 'json'), [`invalid_attribute $[0].targets[0].${name}`], `${name}: ${JSON.stringify(value)}`);
  }
  t.same(issues('[{"verb":"dial","targets":[{"type":"conference","name":"R","colour":"red"}]}]', 'json'), ['unknown_attribute $[0].targets[0].colour']);
  t.same(issues('[{"verb":"dial","conference":"R","number":"+15551234567"}]', 'json'), ['invalid_attribute $[0]'], 'two shortcuts');
});

t.test('a conference is the only noun of its dial', async (t) => {
  t.same(issues('<Response><Dial><Conference>A</Conference><Conference>B</Conference></Dial></Response>'), ['invalid_nesting 1:11']);
  t.same(issues('<Response><Dial><Conference>A</Conference><Number>+15551234567</Number></Dial></Response>'), ['invalid_nesting 1:11']);
  t.same(issues('<Response><Dial><Conference>A<Number>+15551234567</Number></Conference></Dial></Response>'), ['invalid_nesting 1:30'], 'nothing inside it either');
  t.same(issues('<Response><Gather><Dial><Conference>A</Conference></Dial></Gather></Response>'), ['invalid_nesting 1:19']);
});
