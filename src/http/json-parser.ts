import type { FastifyInstance } from 'fastify';
import { AppError } from '../domain/errors.js';

/**
 * Only JSON bodies are accepted (anything else is 415), in UTF-8: a `charset` other than
 * UTF-8 is 415 too (JSON is UTF-8, RFC 8259; tack does not convert), and other bytes are 400
 * `malformed_request`, never read as U+FFFD. An empty body counts as no body,
 * so `POST /todos/{id}/done` with `Content-Type: application/json` and nothing after works.
 * Prototype-poisoning keys are refused by Fastify's own parser.
 */
export function registerJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const charset = charsetOf(request.headers['content-type']);
    if (charset !== undefined && !UTF8_NAMES.has(charset)) {
      done(new AppError('unsupported_media_type', 415, `Send JSON encoded as UTF-8 (charset=utf-8, or no charset); this body says charset=${JSON.stringify(charset.slice(0, 40))}.`), undefined);
      return;
    }
    const text = utf8Text(body);
    if (text === undefined) {
      done(new AppError('malformed_request', 400, 'The body is not valid UTF-8; send JSON encoded as UTF-8.'), undefined);
      return;
    }
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

const UTF8_NAMES = new Set(['utf-8', 'utf8']);

/** The `charset` parameter of a Content-Type, lower-case and unquoted; undefined when it has none. */
export function charsetOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  for (const param of contentType.split(';').slice(1)) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    return param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
  }
  return undefined;
}

// Fatal: bytes that are not UTF-8 are refused, not read as U+FFFD (JSON is UTF-8, RFC 8259).
// The BOM is kept, as Buffer#toString keeps it, so that JSON.parse refuses it as before.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A body's text, or undefined when its bytes are not UTF-8. */
export function utf8Text(body: string | Buffer): string | undefined {
  // Read as a Buffer (parseAs), though Fastify's types allow either.
  if (typeof body === 'string') return body;
  try {
    return UTF8.decode(body);
  } catch {
    return undefined;
  }
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
