import t from 'tap';
import fc from 'fast-check';
import { renderTemplate, sampleBody, validateTemplate, TemplateError } from '../../src/events/template.js';
import { EVENT_TYPES } from '../../src/events/lifecycle.js';

t.test('every documented field of every event type is usable in a template', async (t) => {
  for (const type of EVENT_TYPES) {
    const body = sampleBody(type);
    const fields = Object.keys(body.data as object).map((f) => `"${f}": {{data.${f}}}`);
    t.doesNotThrow(() => validateTemplate(`{${fields.join(', ')}, "type": {{event_type}}, "sid": {{event_sid}}}`, type), type);
  }
});

t.test('rendering JSON-encodes values, so output stays valid JSON for any string', async (t) => {
  fc.assert(fc.property(fc.string(), fc.string(), (from, name) => {
    const out = renderTemplate('{"from": {{data.from}}, "name": {{data.attributes.name}}, "nope": {{data.absent}}}', { data: { from, attributes: { name } } });
    const parsed = JSON.parse(out) as Record<string, unknown>;
    return parsed.from === from && parsed.name === name && parsed.nope === null;
  }));
  t.throws(() => validateTemplate('{"a": {{data.attributes.x.y}}}', 'web-form'), TemplateError, 'one level into open objects only');
  t.throws(() => validateTemplate('x'.repeat(16 * 1024 + 1), 'hangup'), /longer than/);
  t.throws(() => validateTemplate('{"a": {{__proto__}}}', 'hangup'), TemplateError);
});
