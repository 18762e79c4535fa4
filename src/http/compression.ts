import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/**
 * Text and JSON responses, the app's hashed assets included, go out compressed (`br`, else
 * `gzip`) when the client accepts it (contract §13), with Fastify's own plugin. The event
 * stream is never compressed (its default types leave `text/event-stream` out): a compressor
 * would hold events back until its buffer fills. Payloads under 1 KB go as they are.
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    global: true,
    encodings: ['br', 'gzip'],
    threshold: 1024,
  });
}
