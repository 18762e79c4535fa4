import type { FastifyInstance } from 'fastify';
import { AppError } from '../domain/errors.js';

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
    parseJson(request, text, (err, value) => {
      if (err && parsesAsJson(text)) {
        // Valid JSON that Fastify's parser refused: a prototype-poisoning key. Say so, rather
        // than "not valid JSON", which would send the caller looking for a syntax error.
        done(new AppError('malformed_request', 400, 'The body uses a key tack refuses (__proto__, or constructor with prototype); rename it.'), undefined);
        return;
      }
      done(err, value);
    });
  });
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
