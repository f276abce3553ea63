import t from 'tap';
import { detectFormat, formatIssues, MarkupError, parseMarkup, type MarkupFormat, type MarkupIssue } from '../../src/markup/index.js';

function issuesOf(text: string | Buffer, format: MarkupFormat, opts?: { maxBytes?: number }): MarkupIssue[] {
  try {
    parseMarkup(text, format, opts);
  } catch (err) {
    if (err instanceof MarkupError) return err.issues;
    throw err;
  }
  throw new Error('document was accepted');
}

/** [document, code, "line:column"] — XML documents must locate the problem. */
const XML_CASES: [string, string, string][] = [
  ['<Response><Say colour="red">Hi</Say></Response>', 'unknown_attribute', '1:16'],
  ['<Response>\n  <Play digits="1">https://a.example/x.mp3</Play>\n</Response>', 'unknown_attribute', '2:9'],
  ['<Response><Record transcribe="yes"/></Response>', 'invalid_attribute', '1:19'],
  ['<Response><Dial trim="trim-silence">+15551234567</Dial></Response>', 'unknown_attribute', '1:17'],
  ['<Response><Say loop="-1">Hi</Say></Response>', 'invalid_attribute', '1:16'],
  ['<Response><Say loop="0x10">Hi</Say></Response>', 'invalid_attribute', '1:16'],
  ['<Response><Pause length="601"/></Response>', 'invalid_attribute', '1:18'],
  ['<Response>\n<Gather timeout="0"><Say>x</Say></Gather></Response>', 'invalid_attribute', '2:9'],
  ['<Response><Gather finishOnKey="##"/></Response>', 'invalid_attribute', '1:19'],
  ['<Response><Gather method="PUT"/></Response>', 'invalid_attribute', '1:19'],
  ['<Response><Gather input="voice"/></Response>', 'invalid_attribute', '1:19'],
  ['<Response><Gather input="speech speech"/></Response>', 'invalid_attribute', '1:19'],
  ['<Response><Gather input="speech" speechTimeout="0"/></Response>', 'invalid_attribute', '1:34'],
  ['<Response><Gather input="speech" hints="a|b"/></Response>', 'invalid_attribute', '1:34'],
  ['<Response><Gather hints="sales"/></Response>', 'invalid_attribute', '1:11'],
  ['<Response><Gather action="javascript:alert(1)"/></Response>', 'invalid_attribute', '1:19'],
  ['<Response><Record playBeep="TRUE"/></Response>', 'invalid_attribute', '1:19'],
  ['<Response><Record finishOnKey="1123"/></Response>', 'invalid_attribute', '1:19'],
  ['<Response><Reject reason="later"/></Response>', 'invalid_attribute', '1:19'],
  ['<Response><Dial timeout="4">+15551234567</Dial></Response>', 'invalid_attribute', '1:17'],
  ['<Response><Dial callerId="5551234">+15551234567</Dial></Response>', 'invalid_attribute', '1:17'],
  ['<Response><Dial record="always">+15551234567</Dial></Response>', 'invalid_attribute', '1:17'],
  ['<Response><Dial><Number sendDigits="12x">+15551234567</Number></Dial></Response>', 'invalid_attribute', '1:25'],
  ['<Response><Dial><Number machineDetection="enable">+15551234567</Number></Dial></Response>', 'invalid_attribute', '1:25'],
  ['<Response><Dial><Number machineDetectionTimeout="10">+15551234567</Number></Dial></Response>', 'invalid_attribute', '1:25'],
  ['<Response><Dial><Sip machineDetection="Enable" machineDetectionTimeout="60">sip:a@b.example</Sip></Dial></Response>', 'invalid_attribute', '1:48'],
  ['<Response><Dial><Client machineDetection="Enable">bob</Client></Dial></Response>', 'unknown_attribute', '1:25'],
  ['<Response><Dial><Sip>http://pbx.example.com</Sip></Dial></Response>', 'invalid_text', '1:17'],
  ['<Response><Dial><Client>bad identity</Client></Dial></Response>', 'invalid_text', '1:17'],
  ['<Response><Dial>+05551234567</Dial></Response>', 'invalid_text', '1:11'],
  ['<Response><Redirect>ftp://files.example.com/x</Redirect></Response>', 'invalid_text', '1:11'],
  ['<Response><Redirect/></Response>', 'missing_text', '1:11'],
  ['<Response><Dial><Number/></Dial></Response>', 'missing_text', '1:17'],
  ['<Response><Dial>+15551234567<Number>+15551234568</Number></Dial></Response>', 'unexpected_text', '1:11'],
  ['<Response>hello</Response>', 'unexpected_text', '1:1'],
  ['<Response><Pause>5</Pause></Response>', 'unexpected_text', '1:11'],
  ['<Response version="2"/>', 'unknown_attribute', '1:11'],
  ['<Response>\n\n   <Speak>Hi</Speak></Response>', 'unknown_verb', '3:4'],
  ['<Response><Say><break time="1s"/>Hi</Say></Response>', 'unknown_verb', '1:16'],
  ['<Response><Say>Hi<Say>nested</Say></Say></Response>', 'invalid_nesting', '1:18'],
  ['<Response><Dial><Say>Hi</Say></Dial></Response>', 'invalid_nesting', '1:17'],
  ['<Response><Client>alice</Client></Response>', 'invalid_nesting', '1:11'],
  ['<Response><Leave>now</Leave></Response>', 'unexpected_text', '1:11'],
  ['<Response><Dial><Queue>support</Queue><Number>+15551234567</Number></Dial></Response>', 'invalid_nesting', '1:11'],
  ['<Response><Dial timeLimit="60"><Queue>support</Queue></Dial></Response>', 'invalid_attribute', '1:11'],
  ['<Response><Dial/></Response>', 'missing_target', '1:11'],
  ['<response/>', 'invalid_root', '1:1'],
  ['<?xml version="1.0"?>\n<Say>Hi</Say>', 'invalid_root', '2:1'],
  ['<Response><Say>Hi</Say>', 'malformed_xml', '1:1'],
  ['<Response><Say loop=2>Hi</Say></Response>', 'malformed_xml', '1:16'],
  ['<Response><Say loop="1" loop="2">Hi</Say></Response>', 'malformed_xml', '1:25'],
  ['<Response/>\n<Response/>', 'malformed_xml', '2:1'],
  ['<Response><Say>a &b</Say></Response>', 'malformed_xml', '1:18'],
  ['<Response><Say>&#xD800;</Say></Response>', 'malformed_xml', '1:16'],
  ['<!DOCTYPE Response SYSTEM "file:///etc/passwd"><Response/>', 'doctype_forbidden', '1:1'],
  ['<Response>\n  <Say>&xxe;</Say>\n</Response>', 'entity_forbidden', '2:8'],
  ['<Response><Say voice="&custom;">Hi</Say></Response>', 'entity_forbidden', '1:23'],
  ['<!ENTITY x "y"><Response/>', 'entity_forbidden', '1:1'],
];

for (const [doc, code, at] of XML_CASES) {
  t.test(`xml ${code}: ${JSON.stringify(doc).slice(0, 70)}`, async (t) => {
    const issues = issuesOf(doc, 'xml');
    const hit = issues.find((i) => i.code === code);
    t.ok(hit, `expected ${code}, got ${formatIssues(issues)}`);
    t.equal(hit && `${hit.line}:${hit.column}`, at, 'position');
  });
}

/** [document, code, path or "line:column"] */
const JSON_CASES: [string, string, string][] = [
  ['[{"verb":"say"}]', 'missing_attribute', '$[0]'],
  ['[{"verb":"say","text":""}]', 'invalid_attribute', '$[0].text'],
  ['[{"verb":"say","text":"hi","voice":"bad voice"}]', 'invalid_attribute', '$[0].voice'],
  ['[{"verb":"play","url":"/relative.mp3"}]', 'invalid_attribute', '$[0].url'],
  ['[{"verb":"pause","length":1.5}]', 'invalid_attribute', '$[0].length'],
  ['[{"verb":"pause","length":"2"}]', 'invalid_attribute', '$[0].length'],
  ['[{"verb":"hangup","reason":"x"}]', 'unknown_attribute', '$[0].reason'],
  ['[{"verb":"say","text":"hi","__proto__":1}]', 'unknown_attribute', '$[0].__proto__'],
  ['[{"verb":"say","text":"hi","odd key":1}]', 'unknown_attribute', '$[0]["odd key"]'],
  ['[{"verb":42}]', 'invalid_attribute', '$[0].verb'],
  ['[{"verb":"constructor"}]', 'unknown_verb', '$[0]'],
  ['[{"verb":"record"}]', 'not_supported_in_json', '$[0]'],
  ['[{"verb":"redirect","url":"/x"}]', 'not_supported_in_json', '$[0]'],
  ['[{"verb":"leave","now":true}]', 'unknown_attribute', '$[0].now'],
  ['[{"verb":"enqueue"}]', 'missing_attribute', '$[0]'],
  ['[{"verb":"enqueue","queue":"support","maxWait":5}]', 'invalid_attribute', '$[0].maxWait'],
  ['[null]', 'invalid_verb', '$[0]'],
  ['[{"verb":"dial","number":"+15551234567","client":"bob"}]', 'invalid_attribute', '$[0]'],
  ['[{"verb":"dial","targets":[]}]', 'missing_target', '$[0].targets'],
  ['[{"verb":"dial","targets":{}}]', 'invalid_attribute', '$[0].targets'],
  ['[{"verb":"dial","targets":[{"number":"+15551234567"}]}]', 'missing_attribute', '$[0].targets[0]'],
  ['[{"verb":"dial","targets":[{"type":"number","number":"+1"}]}]', 'invalid_attribute', '$[0].targets[0].number'],
  ['[{"verb":"dial","targets":[{"type":"sip","uri":"sip:a@b.example","pin":"1"}]}]', 'unknown_attribute', '$[0].targets[0].pin'],
  ['[{"verb":"dial","number":"+15551234567","timeout":601}]', 'invalid_attribute', '$[0].timeout'],
  ['"hello"', 'invalid_root', '$'],
  ['[1,\n 2', 'malformed_json', '2:3'],
  ['[{"verb":"say",\n  "text":"a\u0001"}]', 'malformed_json', '2:12'],
  ['', 'malformed_json', '1:1'],
  ['[] []', 'malformed_json', '1:4'],
];

for (const [doc, code, at] of JSON_CASES) {
  t.test(`json ${code}: ${JSON.stringify(doc).slice(0, 70)}`, async (t) => {
    const issues = issuesOf(doc, 'json');
    const hit = issues.find((i) => i.code === code);
    t.ok(hit, `expected ${code}, got ${formatIssues(issues)}`);
    const where = /^\d+:\d+$/.test(at) ? hit && `${hit.line}:${hit.column}` : hit?.path;
    t.equal(where, at, 'location');
  });
}

t.test('all issues in a document are reported, in document order', async (t) => {
  const doc = ['<Response>', '  <Say loop="x" colour="red">Hi</Say>', '  <Foo/>', '  <Pause length="0"/>', '</Response>'].join('\n');
  const issues = issuesOf(doc, 'xml');
  t.same(
    issues.map((i) => `${i.line}:${i.column} ${i.code}`),
    ['2:8 invalid_attribute', '2:17 unknown_attribute', '3:3 unknown_verb', '4:10 invalid_attribute'],
  );
  t.match(formatIssues(issues), /^2:17 unknown_attribute: <Say> has no attribute "colour"$/m);
});

t.test('limits', async (t) => {
  t.equal(issuesOf('<Response/>', 'xml', { maxBytes: 5 })[0]?.code, 'too_large');
  t.equal(issuesOf('x'.repeat(70_000), 'xml')[0]?.code, 'too_large');
  t.equal(issuesOf(Buffer.alloc(70_000, 0x20), 'json')[0]?.code, 'too_large');
  t.equal(issuesOf('<Response>' + '<Say>'.repeat(20) + '</Say>'.repeat(20) + '</Response>', 'xml')[0]?.code, 'too_deep');
  t.equal(issuesOf('<a>'.repeat(20_000), 'xml')[0]?.code, 'too_deep');
  const many = '<Response>' + '<Hangup/>'.repeat(101) + '</Response>';
  t.same(issuesOf(many, 'xml').map((i) => i.code), ['too_many_verbs']);
  t.same(issuesOf(JSON.stringify(Array(150).fill({ verb: 'hangup' })), 'json').map((i) => i.code), ['too_many_verbs']);
  const prompts = '<Response>' + '<Gather>' + '<Pause/>'.repeat(100) + '</Gather></Response>';
  t.same(issuesOf(prompts, 'xml').map((i) => i.code), ['too_many_verbs'], 'prompts count');
  t.equal(parseMarkup('<Response>' + '<Hangup/>'.repeat(100) + '</Response>', 'xml').length, 100);
  const noisy = issuesOf('<Response>' + '<X/>'.repeat(80) + '</Response>', 'xml');
  t.equal(noisy.length, 51);
  t.equal(noisy.at(-1)?.code, 'too_many_issues');
  const targets = '<Response><Dial>' + '<Number>+15551234567</Number>'.repeat(11) + '</Dial></Response>';
  t.equal(issuesOf(targets, 'xml')[0]?.code, 'too_many_targets');
  t.equal(issuesOf('['.repeat(30_000) + ']'.repeat(30_000), 'json')[0]?.code, 'invalid_verb');
});

t.test('input encodings', async (t) => {
  t.equal(issuesOf(Buffer.from([0x3c, 0xff, 0xfe]), 'xml')[0]?.code, 'invalid_encoding');
  t.equal(issuesOf(42 as unknown as string, 'xml')[0]?.code, 'invalid_encoding');
  t.equal(issuesOf('[]', 'yaml' as MarkupFormat)[0]?.code, 'invalid_format');
  t.same(parseMarkup(Buffer.from('\ufeff<Response><Hangup/></Response>'), 'xml'), [{ verb: 'hangup' }], 'BOM in a Buffer');
  const bom = issuesOf('\ufeff<Response><Foo/></Response>', 'xml')[0];
  t.equal(`${bom?.line}:${bom?.column}`, '1:11', 'a BOM does not shift columns');
});

t.test('detectFormat', async (t) => {
  t.equal(detectFormat('  \n<Response/>'), 'xml');
  t.equal(detectFormat('\ufeff<?xml version="1.0"?><Response/>'), 'xml');
  t.equal(detectFormat('[]'), 'json');
  t.equal(detectFormat('\t{"verbs":[]}'), 'json');
  for (const text of ['', '   ', 'hello', '"x"']) {
    let code: string | undefined;
    try {
      detectFormat(text);
    } catch (err) {
      code = err instanceof MarkupError ? err.issues[0]?.code : 'not a MarkupError';
    }
    t.equal(code, 'unknown_format', JSON.stringify(text));
  }
});

t.test('MarkupError', async (t) => {
  const err = (() => {
    try {
      parseMarkup('<Response><Foo/><Bar/></Response>', 'xml');
    } catch (e) {
      return e;
    }
  })();
  t.ok(err instanceof MarkupError && err instanceof Error);
  if (!(err instanceof MarkupError)) return;
  t.equal(err.name, 'MarkupError');
  t.equal(err.message, '1:11 unknown_verb: unknown verb <Foo> (and 1 more)');
  t.equal(err.issues.length, 2);
});
