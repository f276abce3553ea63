// <Say voice>: the built-in voices everywhere, an account's vendor voices where the document is read for it, and
// anything else an unknown_voice error at the attribute (nested prompts included), in both dialects.
import t from 'tap';
import { MarkupError, parseMarkup, type MarkupIssue } from '../../src/markup/index.js';

const account = { vendor: new Set(['alloy', 'af_bella']) };

function issues(text: string, format: 'xml' | 'json', voices = account): MarkupIssue[] {
  try {
    parseMarkup(text, format, { voices });
    return [];
  } catch (err) {
    if (err instanceof MarkupError) return err.issues;
    throw err;
  }
}

t.test('built-in voices are known without an account, in any case', async (t) => {
  for (const voice of ['default', 'Alice', 'MAN', 'woman', 'slt', 'rms', 'kal', 'awb', 'male', 'female']) {
    t.equal(parseMarkup(`<Response><Say voice="${voice}">Hi</Say></Response>`, 'xml')[0]!.verb, 'say', voice);
  }
});

t.test("an account's vendor voices are known where it is given, exactly as listed", async (t) => {
  t.same(parseMarkup('<Response><Say voice="af_bella">Hi</Say></Response>', 'xml', { voices: account }),
    [{ verb: 'say', text: 'Hi', voice: 'af_bella', language: 'en-US', loop: 1 }]);
  t.same(issues('[{"verb":"say","text":"Hi","voice":"alloy"}]', 'json'), []);
  const [upper] = issues('<Response><Say voice="ALLOY">Hi</Say></Response>', 'xml');
  t.equal(upper?.code, 'unknown_voice', 'vendor names are not case-folded');
  const [without] = issues('<Response><Say voice="alloy">Hi</Say></Response>', 'xml', { vendor: new Set() });
  t.match(without, { code: 'unknown_voice', line: 1, column: 16 }, 'unknown without the account');
  t.notMatch(without!.message, /account's/, 'no account voices to list');
});

t.test('an unknown voice is an error at its attribute, naming the voices there are', async (t) => {
  const [xml] = issues('<Response>\n  <Gather input="dtmf"><Say voice="Polly.Joanna">Press 1</Say></Gather>\n</Response>', 'xml');
  t.match(xml, { code: 'unknown_voice', line: 2, column: 29 });
  t.match(xml!.message, /<Say> voice "Polly\.Joanna" is not a voice here; use the built-in voices \(default, .*\) or the account's \(alloy, af_bella\)/);
  const [json] = issues('[{"verb":"say","text":"Hi","voice":"nova"}]', 'json');
  t.match(json, { code: 'unknown_voice', path: '$[0].voice' });
});
