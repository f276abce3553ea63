// Form-encoded request bodies for the API routes that take them (docs/acd.md, docs/conferences.md). A form has
// only text, so its values are read against the route's schema the way query strings are: "30" is the integer 30,
// "true" the boolean, a lone value a one-item array (validation.ts). JSON bodies stay strictly typed.
import type { FastifyInstance } from 'fastify';

const FORM_BODIES = new WeakSet<object>();

/** Whether `body` was parsed from a form (and so may be coerced to the schema's types). */
export const isFormBody = (body: unknown): boolean => typeof body === 'object' && body !== null && FORM_BODIES.has(body);

/**
 * Adds the form parser to a scope, and says so in the OpenAPI document of each of its routes with a body. A repeated
 * key (`queues=a&queues=b`) becomes an array, in order.
 */
export function acceptFormBodies(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.schema?.body) route.schema = { ...route.schema, consumes: ['application/json', 'application/x-www-form-urlencoded'] };
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    // No prototype: a key named __proto__ is a field like any other (then refused as unknown), never a prototype.
    const fields = Object.create(null) as Record<string, string | string[]>;
    for (const [key, value] of new URLSearchParams(body as string)) {
      const seen = fields[key];
      fields[key] = seen === undefined ? value : [...[seen].flat(), value];
    }
    FORM_BODIES.add(fields);
    done(null, fields);
  });
}
