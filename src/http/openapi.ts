import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { jsonSchemaTransform } from '@fastify/type-provider-zod';

export const API_VERSION = '0.9.0-beta';

/** OpenAPI 3.1 generated from the operation routes, served at GET /v1/openapi.json without auth. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'tack API',
        version: API_VERSION,
        description: 'Snippets, cards, todos and milestones. Every error uses one envelope: {code, http_status, user_message, request_id}.',
      },
      servers: [{ url: '/v1' }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'tack_live_…' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });
  let cached: string | undefined;
  app.get('/v1/openapi.json', { schema: { hide: true } }, async (_request, reply) => {
    cached ??= JSON.stringify(app.swagger());
    return reply.type('application/json; charset=utf-8').send(cached);
  });
}
