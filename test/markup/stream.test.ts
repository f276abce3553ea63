// <Connect><Stream>, <Start><Stream>, <Stop><Stream> and their JSON forms: defaults, parameters, and each bad
// value refused with its code and position.
import t from 'tap';
import { parseMarkup, MarkupError, streamUrlsOf, targetUrlsOf } from '../../src/markup/index.js';

const issues = (src: string, format: 'xml' | 'json' = 'xml') => {
  try {
    parseMarkup(src, format);
    return [];
  } catch (err) {
    if (!(err instanceof MarkupError)) throw err;
    return err.issues.map((i) => `${i.code} ${i.path ?? `${i.line}:${i.column}`}`);
  }
};

t.test('XML Connect: defaults, parameters, action', async (t) => {
  const verbs = parseMarkup(`<Response><Connect action="/after" method="GET"><Stream url="wss://agent.example.com/s" name="agent"
    statusCallback="https://hooks.example.com/s"><Parameter name="lang" value="en"/><Parameter name="empty" value=""/></Stream></Connect>
    <Say>Bye</Say></Response>`, 'xml');
  t.same(verbs[0], {
    verb: 'connect', action: '/after', method: 'GET',
    stream: {
      url: 'wss://agent.example.com/s', name: 'agent', track: 'inbound_track', statusCallback: 'https://hooks.example.com/s', statusCallbackMethod: 'POST',
      parameters: [{ name: 'lang', value: 'en' }, { name: 'empty', value: '' }],
    },
  });
  t.same(parseMarkup('<Response><Connect><Stream url="wss://a.example.com/"/></Connect></Response>', 'xml'), [
    { verb: 'connect', method: 'POST', stream: { url: 'wss://a.example.com/', track: 'inbound_track', statusCallbackMethod: 'POST', parameters: [] } },
  ]);
  t.same(streamUrlsOf(verbs), ['wss://agent.example.com/s']);
  t.same(targetUrlsOf(verbs), ['https://hooks.example.com/s'], 'the status callback is a target URL; the relative action resolves later');
});

t.test('XML Start and Stop', async (t) => {
  const verbs = parseMarkup(`<Response><Start><Stream url="wss://tap.example.com/" name="rec" track="both_tracks"/></Start>
    <Say>Hello</Say><Stop><Stream name="rec"/></Stop></Response>`, 'xml');
  t.same(verbs, [
    { verb: 'start', stream: { url: 'wss://tap.example.com/', name: 'rec', track: 'both_tracks', statusCallbackMethod: 'POST', parameters: [] } },
    { verb: 'say', text: 'Hello', voice: 'alice', language: 'en-US', loop: 1 },
    { verb: 'stop', name: 'rec' },
  ].map((v) => (v.verb === 'say' ? { ...v, ...(verbs[1] as object) } : v)));
});

t.test('JSON forms', async (t) => {
  t.same(parseMarkup('[{"verb":"stream","url":"wss://a.example.com/x","name":"n","parameters":{"a":"1"},"action":"/next"}]', 'json'), [
    { verb: 'connect', action: '/next', method: 'POST', stream: { url: 'wss://a.example.com/x', name: 'n', track: 'inbound_track', statusCallbackMethod: 'POST', parameters: [{ name: 'a', value: '1' }] } },
  ]);
  t.same(parseMarkup('[{"verb":"start_stream","url":"wss://a.example.com/","track":"outbound_track"},{"verb":"stop_stream","name":"x"}]', 'json'), [
    { verb: 'start', stream: { url: 'wss://a.example.com/', track: 'outbound_track', statusCallbackMethod: 'POST', parameters: [] } },
    { verb: 'stop', name: 'x' },
  ]);
});

t.test('the linter refuses bad streams with a code and a place', async (t) => {
  t.same(issues('<Response><Connect><Stream url="https://a.example.com/"/></Connect></Response>'), ['invalid_attribute 1:28']);
  t.same(issues('<Response><Connect><Stream/></Connect></Response>'), ['missing_attribute 1:20']);
  t.same(issues('<Response><Connect></Connect></Response>'), ['missing_target 1:11']);
  t.same(issues('<Response><Connect><Stream url="wss://a.example.com/"/><Stream url="wss://b.example.com/"/></Connect></Response>'), ['invalid_nesting 1:11']);
  t.same(issues('<Response><Connect><Say>x</Say></Connect></Response>'), ['missing_target 1:11', 'invalid_nesting 1:20']);
  t.same(issues('<Response><Connect><Stream url="wss://a.example.com/" track="both_tracks"/></Connect></Response>'), ['invalid_attribute 1:55'], 'bidirectional streams carry the inbound track only');
  t.same(issues('<Response><Start><Stream url="wss://a.example.com/" track="all"/></Start></Response>'), ['invalid_attribute 1:53']);
  t.same(issues('<Response><Start><Stream url="wss://a.example.com/"><Parameter value="v"/></Stream></Start></Response>'), ['missing_attribute 1:53']);
  t.same(issues('<Response><Start><Stream url="wss://a.example.com/"><Foo/></Stream></Start></Response>'), ['unknown_verb 1:53']);
  t.same(issues('<Response><Stop><Stream/></Stop></Response>'), ['missing_attribute 1:17']);
  t.same(issues('<Response><Stream url="wss://a.example.com/"/></Response>'), ['invalid_nesting 1:11']);
  const many = Array.from({ length: 33 }, (_, i) => `<Parameter name="p${i}" value="v"/>`).join('');
  t.same(issues(`<Response><Start><Stream url="wss://a.example.com/">${many}</Stream></Start></Response>`), ['invalid_attribute 1:18']);
  t.same(issues('[{"verb":"stream","url":"ws:/x"}]', 'json'), ['invalid_attribute $[0].url']);
  t.same(issues('[{"verb":"stream","url":"wss://a.example.com/","parameters":{"a":1}}]', 'json'), ['invalid_attribute $[0].parameters.a']);
  t.same(issues('[{"verb":"stream","url":"wss://a.example.com/","parameters":["a"]}]', 'json'), ['invalid_attribute $[0].parameters']);
  t.same(issues('[{"verb":"stop_stream"}]', 'json'), ['missing_attribute $[0]']);
  t.same(issues(`[{"verb":"start_stream","url":"wss://a.example.com/","parameters":{"a":"${'x'.repeat(501)}"}}]`, 'json'), ['invalid_attribute $[0].parameters.a']);
});
