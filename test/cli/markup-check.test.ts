import t from 'tap';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { cli, run, CLI, cleanEnv } from '../helpers/spawn.js';
import { tempDir } from '../helpers/harness.js';

t.test('markup check lints XML and JSON documents', async (t) => {
  const dir = tempDir(t);
  const rb = cli(dir);
  const good = path.join(dir, 'good.xml');
  writeFileSync(good, '<Response><Say>Hello</Say><Gather numDigits="1" action="/next"><Say>Press 1</Say></Gather></Response>');
  const ok = await rb('markup', 'check', good);
  t.equal(ok.code, 0);
  t.match(ok.stdout, /ok: 2 verb/);
  const okJson = JSON.parse((await rb('--json', 'markup', 'check', good)).stdout);
  t.equal(okJson.verbs[1].verb, 'gather');

  const bad = path.join(dir, 'bad.xml');
  writeFileSync(bad, '<Response>\n  <Say colour="red">Hi</Say>\n  <Dance/>\n</Response>');
  const res = await rb('markup', 'check', bad);
  t.equal(res.code, 1, 'exit 1 on errors');
  t.match(res.stdout, /2:\d+ unknown_attribute/);
  t.match(res.stdout, /3:\d+ unknown_verb/);
  const resJson = JSON.parse((await rb('--json', 'markup', 'check', bad)).stdout);
  t.same(resJson.errors.map((e: any) => [e.code, e.line]), [['unknown_attribute', 2], ['unknown_verb', 3]]);

  const stdin = await run(CLI, ['markup', 'check', '-'], { env: cleanEnv({ RINGBASE_DATA_DIR: dir }), input: '[{"verb":"gather"}]' });
  t.equal(stdin.code, 1, 'reads standard input; JSON has no gather');
  t.match(stdin.stdout, /not_supported_in_json/);
});

t.test('markup check knows <Conference> and its attributes', async (t) => {
  const dir = tempDir(t);
  const rb = cli(dir);
  const good = path.join(dir, 'conference.xml');
  writeFileSync(good, '<Response><Dial action="/after"><Conference muted="true" statusCallback="https://hooks.example.com/c">Team</Conference></Dial></Response>');
  const ok = JSON.parse((await rb('--json', 'markup', 'check', good)).stdout);
  t.match(ok.verbs[0].targets[0], { type: 'conference', name: 'Team', muted: true, beep: 'true', maxParticipants: 250, statusCallbackEvent: ['start', 'end'] });

  const bad = path.join(dir, 'bad-conference.xml');
  const lines = [
    '<Response>',
    '  <Dial><Conference muted="yes" beep="loud" maxParticipants="1" coach="bob"',
    '    statusCallbackEvent="start finish" waitUrl="javascript:alert(1)">Team</Conference></Dial>',
    '  <Dial><Conference>Other</Conference><Number>+15551234567</Number></Dial>',
    '</Response>',
  ];
  writeFileSync(bad, lines.join('\n'));
  const at = (line: number, text: string) => [line, lines[line - 1]!.indexOf(text) + 1];
  const res = await rb('markup', 'check', bad);
  t.equal(res.code, 1, 'exit 1 on errors');
  t.match(res.stdout, /2:\d+ invalid_attribute: <Conference> attribute "muted" must be "true" or "false"/);
  t.match(res.stdout, /2:\d+ invalid_attribute: <Conference> attribute "coach" must be a call sid/);
  const errors = JSON.parse((await rb('--json', 'markup', 'check', bad)).stdout).errors;
  // Issues come in the order the attributes are read; compared in document order.
  const byPlace = (a: any[], b: any[]) => a[1] - b[1] || a[2] - b[2];
  t.same(errors.map((e: any) => [e.code, e.line, e.column]).sort(byPlace), [
    ['invalid_attribute', ...at(2, 'muted=')], ['invalid_attribute', ...at(2, 'beep=')], ['invalid_attribute', ...at(2, 'maxParticipants=')],
    ['invalid_attribute', ...at(2, 'coach=')], ['invalid_attribute', ...at(3, 'statusCallbackEvent=')], ['invalid_attribute', ...at(3, 'waitUrl=')],
    ['invalid_nesting', ...at(4, '<Dial>')],
  ], 'one issue per bad attribute, each at its own place, and the conference beside a number');

  const json = await run(CLI, ['markup', 'check', '-'], {
    env: cleanEnv({ RINGBASE_DATA_DIR: dir }), input: '[{"verb":"dial","targets":[{"type":"conference","name":"R","beep":"loud","muted":"true"}]}]',
  });
  t.equal(json.code, 1);
  t.match(json.stdout, /\$\[0\]\.targets\[0\]\.beep invalid_attribute/);
  t.match(json.stdout, /\$\[0\]\.targets\[0\]\.muted invalid_attribute/);
});

t.test("markup check lints voices: the built-in ones, and an account's given with --voice", async (t) => {
  const dir = tempDir(t);
  const rb = cli(dir);
  const doc = path.join(dir, 'voices.xml');
  writeFileSync(doc, '<Response><Say voice="alice">Hi</Say><Say voice="nova">Hello</Say></Response>');
  const unknown = await rb('markup', 'check', doc);
  t.equal(unknown.code, 1);
  t.match(unknown.stdout, /1:\d+ unknown_voice: <Say> voice "nova" is not a voice here/);
  const known = await rb('markup', 'check', '--voice', 'nova', '--voice', 'alloy', doc);
  t.equal(known.code, 0, known.stdout);
  t.match(known.stdout, /ok: 2 verb/);
});
