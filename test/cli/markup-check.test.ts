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
