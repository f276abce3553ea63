import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { LiveError, LiveMessage, LiveValidationError } from './schemas/common.js';
import { RESPONSE_EXAMPLES, TAGS } from './openapi-examples.js';

type Operations = Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { example?: unknown }> }> }>>;

/** Puts each success response's example (openapi-examples.ts) on its JSON media type. */
function withExamples<T extends { paths?: unknown }>(doc: T): T {
  for (const [route, ops] of Object.entries((doc.paths ?? {}) as Operations)) {
    for (const [method, op] of Object.entries(ops)) {
      for (const [status, example] of Object.entries(RESPONSE_EXAMPLES[`${method.toUpperCase()} ${route}`] ?? {})) {
        const media = op.responses?.[status]?.content?.['application/json'];
        if (media) media.example = example;
      }
    }
  }
  return doc;
}

/** OpenAPI generated from the route schemas: /openapi.json and a browsable UI at /docs. */
export async function installOpenApi(app: FastifyInstance): Promise<void> {
  for (const schema of [LiveError, LiveMessage, LiveValidationError]) app.addSchema(schema);
  await app.register(swagger, {
    transformObject: (doc) => ('openapiObject' in doc ? withExamples(doc.openapiObject) : doc.swaggerObject),
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Ringbase API',
        version: '0.1.0',
        description: [
          'Ringbase: trunks, calls, recordings, conferences and event webhooks of a self-hosted voice platform.',
          '',
          '**Two roots.** The live API under `/api` (stable within v0.x) and the developer-preview API under `/v1`',
          '(HTTPS only; `RINGBASE_TLS_SELF_SIGNED=1` serves HTTPS locally). Both take `Authorization: Bearer sk_live_...`',
          '(`ringbase key create`); lead injection takes the organisation\'s `X-Injection-Token` instead.',
          '',
          '**Errors.** The live API answers `{"error": "..."}` (with a `code` where one is stable),',
          '`{"message": "..."}` for a missing resource, and `{"message": "...", "errors": {"field": ["..."]}}` (422)',
          'for invalid input. The preview API answers `{"error": {"code", "message", "param"}}`. Every route lists',
          'the errors it can return. 429 responses carry `Retry-After` and the `X-RateLimit-*` headers.',
          '',
          'Markup, events, signatures and every decision the specification leaves open: `docs/` in the repository.',
        ].join('\n'),
      },
      tags: TAGS,
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key, sk_live_...' },
          injectionToken: { type: 'apiKey', in: 'header', name: 'X-Injection-Token', description: "The organisation's lead-injection token." },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
