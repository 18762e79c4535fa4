import { parse as parseQuery } from 'node:querystring';

/** A Slack request body: a slash command's form fields, an interaction payload, or an event envelope. */
export type SlackBody = Record<string, unknown>;

export class MalformedSlackBody extends Error {}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

function asObject(value: unknown): SlackBody {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new MalformedSlackBody('not an object');
  return value as SlackBody;
}

/**
 * Reads the raw body as Slack sends it: `application/x-www-form-urlencoded` for commands
 * (the fields) and interactivity (one `payload` field holding JSON), JSON for events.
 */
export function parseSlackBody(rawBody: Buffer, contentType: string | undefined): SlackBody {
  const text = rawBody.toString('utf8');
  try {
    if (mediaType(contentType) === 'application/x-www-form-urlencoded') {
      const fields = parseQuery(text);
      const flat: SlackBody = {};
      for (const [key, value] of Object.entries(fields)) flat[key] = Array.isArray(value) ? value[0] : value;
      if (typeof flat.payload === 'string') return asObject(JSON.parse(flat.payload));
      return flat;
    }
    return asObject(JSON.parse(text));
  } catch (err) {
    if (err instanceof MalformedSlackBody) throw err;
    throw new MalformedSlackBody((err as Error).message);
  }
}

/** Slack's connectivity probe for slash commands: `ssl_check=1`, unsigned, answered 200. */
export function isSslCheck(rawBody: Buffer, contentType: string | undefined): boolean {
  if (mediaType(contentType) !== 'application/x-www-form-urlencoded') return false;
  return parseQuery(rawBody.toString('utf8')).ssl_check === '1';
}
