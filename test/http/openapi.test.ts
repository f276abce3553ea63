// /openapi.json walked operation by operation: only the public API, a declared tag on each, a schema for every
// response, an example for every success that validates against its own schema, and the errors each route
// returns (401 wherever a key is needed). Examples are also compared in shape with what the server really answers.
import t from 'tap';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { startHarness } from '../helpers/harness.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

interface Operation {
  tags?: string[]; security?: unknown[];
  responses: Record<string, { content?: Record<string, { schema: unknown; example?: unknown }> }>;
}

t.test('every operation is documented in full, with examples that match their schemas', async (t) => {
  const h = await startHarness(t);
  const spec = (await h.request('GET', '/openapi.json')).body as {
    tags: Array<{ name: string; description: string }>; info: { description: string };
    paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> };
  };
  const ajv = addFormats(new Ajv({ strict: false, allowUnionTypes: true }));
  for (const [name, schema] of Object.entries(spec.components.schemas)) ajv.addSchema(schema as object, `#/components/schemas/${name}`);
  const validatorFor = (schema: unknown) => ajv.compile({ ...(schema as object), components: spec.components });

  const declared = new Set(spec.tags.map((tag) => tag.name));
  t.ok(spec.tags.every((tag) => tag.description.length > 20), 'each area has a description');
  t.match(spec.info.description, /Two roots[\s\S]*Errors/, 'the description says where to start: the roots, auth and error shapes');

  let operations = 0;
  for (const [route, ops] of Object.entries(spec.paths)) {
    t.match(route, /^\/(api|v1)\//, `${route}: only the public API`);
    for (const [method, op] of Object.entries(ops)) {
      const name = `${method.toUpperCase()} ${route}`;
      operations++;
      t.ok(op.tags?.length && op.tags.every((tag) => declared.has(tag)), `${name}: tagged with a declared area`);
      const codes = Object.keys(op.responses);
      t.ok(codes.some((c) => /^4/.test(c)), `${name}: documents its client errors (${codes.join(', ')})`);
      if (op.security?.length && !name.includes('lead-injections')) t.ok(codes.includes('401'), `${name}: documents 401`);
      for (const [code, response] of Object.entries(op.responses)) {
        if (code === '204') continue;
        const media = response.content?.['application/json'];
        t.ok(media?.schema, `${name} ${code}: has a schema`);
        if (!/^2/.test(code) || !media) continue;
        t.ok(media.example !== undefined, `${name} ${code}: has an example`);
        const validate = validatorFor(media.schema);
        t.ok(validate(media.example), `${name} ${code}: its example matches its schema ${ajv.errorsText(validate.errors)}`);
      }
    }
  }
  t.ok(operations >= 28, `${operations} operations walked`);

  // What the server answers has the documented shape (the example's keys, the schema's verdict).
  const { key } = await h.account({ trunking: true, trunkCapacity: 5 });
  const created = await h.request('POST', '/api/partner/trunks', { key, body: { transport: 'wss', label: 'Agent seat' } });
  const doc = spec.paths['/api/partner/trunks']!.post!.responses['201']!.content!['application/json']!;
  t.ok(validatorFor(doc.schema)(created.body), 'a real trunk matches the documented schema');
  t.same(Object.keys(created.body).sort(), Object.keys(doc.example as object).sort(), 'and has the same fields as the example');
  const unauthorized = await h.request('GET', '/api/calls', { key: 'sk_live_nope' });
  const errorDoc = spec.paths['/api/calls']!.get!.responses['401']!.content!['application/json']!;
  t.equal(unauthorized.status, 401);
  t.ok(validatorFor(errorDoc.schema)(unauthorized.body), 'a real 401 matches the documented error schema');
});
