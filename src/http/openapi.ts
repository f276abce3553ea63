import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { LiveError, LiveMessage, LiveValidationError } from './schemas/common.js';

/** OpenAPI generated from the route schemas: /openapi.json and a browsable UI at /docs. */
export async function installOpenApi(app: FastifyInstance): Promise<void> {
  for (const schema of [LiveError, LiveMessage, LiveValidationError]) app.addSchema(schema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Ringbase API',
        version: '0.1.0',
        description: 'Live API under /api (v0.x) and developer-preview API under /v1. See docs/ for decisions the spec leaves open.',
      },
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
