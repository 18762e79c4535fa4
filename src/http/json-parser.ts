import type { FastifyInstance } from 'fastify';

/**
 * Only JSON bodies are accepted (anything else is 415). An empty body counts as no body,
 * so `POST /todos/{id}/done` with `Content-Type: application/json` and nothing after works.
 * Prototype-poisoning keys are refused by Fastify's own parser.
 */
export function registerJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim().length === 0) {
      done(null, undefined);
      return;
    }
    parseJson(request, text, done);
  });
}
