import t from 'tap';
import { MarkupError, parseMarkup, type MarkupIssue, type Verb } from '../../src/markup/index.js';

const xml = (body: string): Verb[] => parseMarkup(`<Response>${body}</Response>`, 'xml');
const json = (verbs: unknown[]): Verb[] => parseMarkup(JSON.stringify(verbs), 'json');

function refused(run: () => unknown): MarkupIssue[] {
  try {
    run();
  } catch (err) {
    if (err instanceof MarkupError) return err.issues;
    throw err;
  }
  return [];
}

t.test('defaults are filled in', async (t) => {
  t.same(xml('<Say>Hi</Say>'), [{ verb: 'say', text: 'Hi', voice: 'default', language: 'en-US', loop: 1 }]);
  t.same(xml('<Play>https://a.example/x.mp3</Play>'), [{ verb: 'play', url: 'https://a.example/x.mp3', loop: 1 }]);
  t.same(xml('<Pause/>'), [{ verb: 'pause', length: 1 }]);
  t.same(xml('<Gather/>'), [{ verb: 'gather', method: 'POST', input: ['dtmf'], timeout: 5, finishOnKey: '#', prompts: [] }]);
  t.same(xml('<Gather input="speech"/>'), [{ verb: 'gather', method: 'POST', input: ['speech'], timeout: 5, finishOnKey: '#', speech: { language: 'en-US', speechTimeout: 'auto', actionOnEmptyResult: false }, prompts: [] }], 'speech defaults');
  t.same(xml('<Redirect>next.xml</Redirect>'), [{ verb: 'redirect', url: 'next.xml', method: 'POST' }]);
  t.same(xml('<Hangup/>'), [{ verb: 'hangup' }]);
  t.same(xml('<Reject/>'), [{ verb: 'reject', reason: 'rejected' }]);
  t.same(xml('<Record/>'), [
    { verb: 'record', method: 'POST', maxLength: 3600, timeout: 5, finishOnKey: '1234567890*#', playBeep: true, recordingStatusCallbackMethod: 'POST', transcribe: false },
  ]);
  t.same(xml('<Dial>+15551234567</Dial>'), [
    { verb: 'dial', timeout: 30, method: 'POST', record: 'do-not-record', ringTone: 'us', hangupOnStar: false, answerOnBridge: false, targets: [{ type: 'number', number: '+15551234567' }] },
  ]);
  t.same(parseMarkup('<?xml version="1.0"?>\n<Response/>', 'xml'), []);
  t.same(parseMarkup('  [ ]  ', 'json'), []);
});

t.test('optional values are absent, not undefined', async (t) => {
  const [gather] = xml('<Gather/>');
  t.notOk(gather && 'action' in gather);
  t.notOk(gather && 'numDigits' in gather);
});

t.test('every attribute is read', async (t) => {
  t.same(xml('<Gather action="/g" method="GET" input="speech dtmf" numDigits="64" timeout="600" finishOnKey="" hints="sales, support" language="en-GB" speechTimeout="3" speechModel="whisper-1" actionOnEmptyResult="true"><Say loop="0">a</Say><Play loop="100">http://h/x</Play><Pause length="600"/></Gather>'), [
    {
      verb: 'gather', action: '/g', method: 'GET', input: ['speech', 'dtmf'], numDigits: 64, timeout: 600, finishOnKey: '',
      speech: { hints: 'sales, support', language: 'en-GB', speechTimeout: 3, speechModel: 'whisper-1', actionOnEmptyResult: true },
      prompts: [
        { verb: 'say', text: 'a', voice: 'default', language: 'en-US', loop: 0 },
        { verb: 'play', url: 'http://h/x', loop: 100 },
        { verb: 'pause', length: 600 },
      ],
    },
  ]);
  t.same(xml('<Record action="https://h/r" method="GET" maxLength="14400" timeout="1" finishOnKey="*#" playBeep="false" recordingStatusCallback="/cb" recordingStatusCallbackMethod="GET" transcribeCallback="/t"/>'), [
    { verb: 'record', action: 'https://h/r', method: 'GET', maxLength: 14400, timeout: 1, finishOnKey: '*#', playBeep: false, recordingStatusCallback: '/cb', recordingStatusCallbackMethod: 'GET', transcribe: true, transcribeCallback: '/t' },
  ]);
  t.same(xml('<Dial callerId="+15550000000" timeout="5" action="../after" method="GET" record="record-from-ringing"><Number sendDigits="wW1*#">+15551234567</Number><Sip username="u" password="p w">sips:[2001:db8::1]:5061;transport=tls</Sip><Client>bob.smith@example</Client></Dial>'), [
    {
      verb: 'dial', callerId: '+15550000000', timeout: 5, action: '../after', method: 'GET', record: 'record-from-ringing', ringTone: 'us', hangupOnStar: false, answerOnBridge: false,
      targets: [
        { type: 'number', number: '+15551234567', sendDigits: 'wW1*#' },
        { type: 'sip', uri: 'sips:[2001:db8::1]:5061;transport=tls', username: 'u', password: 'p w' },
        { type: 'client', identity: 'bob.smith@example' },
      ],
    },
  ]);
  t.same(xml('<Reject reason="busy"/><Redirect method="GET"> https://h/x?a=1&amp;b=2 </Redirect>'), [
    { verb: 'reject', reason: 'busy' },
    { verb: 'redirect', url: 'https://h/x?a=1&b=2', method: 'GET' },
  ]);
});

t.test('text decoding', async (t) => {
  const [say] = xml('<Say voice="alice">  Caf&#233; &lt;&amp;&gt; &quot;&apos; &#x1F600;<!-- note --> <![CDATA[&amp; <raw>]]>  </Say>');
  t.same(say, { verb: 'say', text: 'Café <&> "\' 😀 &amp; <raw>', voice: 'alice', language: 'en-US', loop: 1 });
  const [multi] = xml('<Say>line one\n  line two</Say>');
  t.equal(multi?.verb === 'say' && multi.text, 'line one\n  line two');
});

t.test('names that are JavaScript prototype members are just unknown', async (t) => {
  t.match(refused(() => xml('<constructor/>')), [{ code: 'unknown_verb' }]);
  t.match(refused(() => xml('<__proto__/>')), [{ code: 'unknown_verb' }]);
  t.match(refused(() => xml('<Say toString="1" __proto__="2">x</Say>')), [{ code: 'unknown_attribute' }, { code: 'unknown_attribute' }]);
  t.match(refused(() => xml('<Gather><hasOwnProperty/></Gather>')), [{ code: 'unknown_verb' }]);
  t.match(refused(() => xml('<Dial><constructor/></Dial>')), [{ code: 'unknown_verb' }]);
  t.match(refused(() => json([{ verb: 'dial', targets: [{ type: 'constructor' }] }])), [{ code: 'invalid_attribute' }]);
});

t.test('case hints', async (t) => {
  t.match(refused(() => xml('<Gather numdigits="1"/>')), [{ code: 'unknown_attribute', message: /did you mean "numDigits"/ }]);
  t.match(refused(() => xml('<HANGUP/>')), [{ code: 'unknown_verb', message: /did you mean <Hangup>/ }]);
});

t.test('JSON subset maps to the same verbs as XML', async (t) => {
  const fromJson = json([
    { verb: 'say', text: 'Hi', voice: 'alice', language: 'en-GB', loop: 2 },
    { verb: 'play', url: 'https://a.example/x.mp3' },
    { verb: 'pause', length: 3 },
    { verb: 'connect', number: '+15551234567', timeout: 20 },
    { verb: 'dial', sip: 'sip:desk@pbx.example.com' },
    { verb: 'dial', client: 'agent_1', callerId: '+15550000000', record: 'record-from-answer', action: '/done', method: 'GET' },
    { verb: 'dial', targets: [{ type: 'number', number: '+15551234567', sendDigits: '1' }, { type: 'sip', uri: 'sip:a@b.example', username: 'u', password: 'p' }, { type: 'client', identity: 'c' }] },
    { verb: 'enqueue', queue: 'support', waitUrl: '/hold.mp3', action: '/after', method: 'GET', maxWait: 120 },
    { verb: 'hangup' },
  ]);
  const fromXml = xml(
    '<Say voice="alice" language="en-GB" loop="2">Hi</Say><Play>https://a.example/x.mp3</Play><Pause length="3"/>' +
      '<Dial timeout="20">+15551234567</Dial><Dial><Sip>sip:desk@pbx.example.com</Sip></Dial>' +
      '<Dial callerId="+15550000000" record="record-from-answer" action="/done" method="GET"><Client>agent_1</Client></Dial>' +
      '<Dial><Number sendDigits="1">+15551234567</Number><Sip username="u" password="p">sip:a@b.example</Sip><Client>c</Client></Dial>' +
      '<Enqueue waitUrl="/hold.mp3" action="/after" method="GET" maxWait="120"> support </Enqueue><Hangup/>',
  );
  t.same(fromJson, fromXml);
});

t.test('Enqueue: the queue by name, the rest optional, maxWait bounded', async (t) => {
  t.same(xml('<Enqueue>support</Enqueue>'), [{ verb: 'enqueue', queue: 'support', method: 'POST' }]);
  t.match(refused(() => xml('<Enqueue></Enqueue>')), [{ code: 'missing_text' }]);
  t.match(refused(() => xml('<Enqueue maxWait="9">support</Enqueue>')), [{ code: 'invalid_attribute' }]);
  t.match(refused(() => xml(`<Enqueue>${'q'.repeat(65)}</Enqueue>`)), [{ code: 'invalid_text' }]);
});

t.test('Dial timeLimit: seconds from 1 to 4 hours, in XML and JSON; refused with a conference', async (t) => {
  t.match(xml('<Dial timeLimit="90">+15551234567</Dial>'), [{ verb: 'dial', timeLimit: 90 }]);
  t.match(json([{ verb: 'dial', number: '+15551234567', timeLimit: 14400 }]), [{ verb: 'dial', timeLimit: 14400 }]);
  t.notOk('timeLimit' in xml('<Dial>+15551234567</Dial>')[0]!, 'absent: no limit');
  for (const bad of ['0', '14401', 'soon']) t.match(refused(() => xml(`<Dial timeLimit="${bad}">+15551234567</Dial>`)), [{ code: 'invalid_attribute' }], bad);
  t.match(refused(() => xml('<Dial timeLimit="60"><Conference>room</Conference></Dial>')), [{ code: 'invalid_attribute', message: /not to a conference/ }]);
});

t.test('Dial ringTone and hangupOnStar: country ringback (default us), * to hang up the dialled party (default off)', async (t) => {
  t.match(xml('<Dial>+15551234567</Dial>'), [{ verb: 'dial', ringTone: 'us', hangupOnStar: false }], 'defaults');
  t.match(xml('<Dial ringTone="uk" hangupOnStar="true">+15551234567</Dial>'), [{ ringTone: 'uk', hangupOnStar: true }]);
  t.match(json([{ verb: 'dial', number: '+15551234567', ringTone: 'de', hangupOnStar: true }]), [{ ringTone: 'de', hangupOnStar: true }]);
  for (const bad of ['xx', 'US', '']) t.match(refused(() => xml(`<Dial ringTone="${bad}">+15551234567</Dial>`)), [{ code: 'invalid_attribute' }], `ringTone ${bad || '(empty)'}`);
  t.match(refused(() => xml('<Dial hangupOnStar="yes">+15551234567</Dial>')), [{ code: 'invalid_attribute' }]);
});

t.test('Dial answerOnBridge: off by default, for dialled parties only', async (t) => {
  t.match(xml('<Dial>+15551234567</Dial>'), [{ answerOnBridge: false }], 'default');
  t.match(xml('<Dial answerOnBridge="true"><Sip>sip:bob@pbx.example.com</Sip></Dial>'), [{ answerOnBridge: true }]);
  t.match(json([{ verb: 'dial', client: 'alice', answerOnBridge: true }]), [{ answerOnBridge: true }]);
  t.match(refused(() => xml('<Dial answerOnBridge="1">+15551234567</Dial>')), [{ code: 'invalid_attribute' }]);
  t.match(refused(() => xml('<Dial answerOnBridge="true"><Conference>room</Conference></Dial>')), [{ code: 'invalid_attribute', message: /answerOnBridge applies to a dialled party/ }]);
});

t.test('Refer: one <Sip> target, optional action and method, in XML and JSON', async (t) => {
  t.same(xml('<Refer><Sip>sip:alice@pbx.example.com</Sip></Refer>'), [{ verb: 'refer', method: 'POST', target: 'sip:alice@pbx.example.com' }]);
  t.same(xml('<Refer action="/done" method="GET"><Sip>sips:desk@pbx.example.com;transport=tls</Sip></Refer>'), [{ verb: 'refer', action: '/done', method: 'GET', target: 'sips:desk@pbx.example.com;transport=tls' }]);
  t.same(json([{ verb: 'refer', sip: 'sip:alice@pbx.example.com', action: '/done' }]), [{ verb: 'refer', action: '/done', method: 'POST', target: 'sip:alice@pbx.example.com' }]);
  t.match(refused(() => xml('<Refer></Refer>')), [{ code: 'missing_target' }], 'no target');
  t.match(refused(() => xml('<Refer><Sip>sip:a@b.example</Sip><Sip>sip:c@d.example</Sip></Refer>')), [{ code: 'missing_target' }], 'two targets');
  t.match(refused(() => xml('<Refer><Number>+15551234567</Number></Refer>')), [{ code: 'missing_target' }, { code: 'invalid_nesting', message: /only contain one <Sip>/ }], 'a number is not a SIP target');
  t.match(refused(() => xml('<Refer><Sip>alice</Sip></Refer>')), [{ code: 'invalid_text' }], 'not a SIP URI');
  t.match(refused(() => json([{ verb: 'refer' }])), [{ code: 'missing_attribute', message: /"sip"/ }], 'JSON needs sip');
});

t.test('a <Sip> URI may carry X- headers after ?, nothing else', async (t) => {
  t.match(xml('<Dial><Sip>sip:bob@pbx.example.com?X-Tenant=acme&amp;X-Case=42</Sip></Dial>'), [{ targets: [{ type: 'sip', uri: 'sip:bob@pbx.example.com?X-Tenant=acme&X-Case=42' }] }]);
  t.match(refused(() => xml('<Dial><Sip>sip:bob@pbx.example.com?Route=%3Csip:evil.example.com%3E</Sip></Dial>')), [{ code: 'invalid_text', message: /only X- headers/ }]);
});

t.test('JSON values keep their JSON types', async (t) => {
  t.match(refused(() => json([{ verb: 'say', text: 'x', loop: '1' }])), [{ code: 'invalid_attribute', path: '$[0].loop' }]);
  t.match(refused(() => json([{ verb: 'say', text: ' ' }])), [{ code: 'invalid_attribute' }], 'blank text');
  t.match(refused(() => json([{ verb: 'pause', length: 1e21 }])), [{ code: 'invalid_attribute' }]);
  t.match(refused(() => json([{ verb: 'dial', number: 15551234567 }])), [{ code: 'invalid_attribute', path: '$[0].number' }]);
});
