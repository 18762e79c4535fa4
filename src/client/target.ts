import { CliError, EXIT } from './exit.js';

/**
 * The client side's own environment: where the server is and which token to send, as the
 * CLI and `tack mcp` both read it. (The server's environment is `src/config.ts`; the
 * clients are separate programs that only talk to `/v1`.)
 */
export const DEFAULT_URL = 'http://127.0.0.1:3000';

export interface ClientTarget {
  url: string;
  token: string;
  /** How long one request may go without an answer (`TACK_TIMEOUT`, seconds; 60 by default). */
  timeoutMs?: number | undefined;
}

/** `TACK_TIMEOUT` in ms, when set: a positive number of seconds (exit 2 otherwise). */
export function clientTimeoutMs(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.TACK_TIMEOUT?.trim();
  if (raw === undefined || raw === '') return undefined;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new CliError(`TACK_TIMEOUT must be a number of seconds above 0, not "${raw}"`, EXIT.usage);
  return seconds * 1000;
}

export function normalizeUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`TACK_URL is not a URL: ${url}`, EXIT.usage);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new CliError(`TACK_URL must be an http or https URL: ${url}`, EXIT.usage);
  }
  return parsed.toString().replace(/\/+$/, '');
}
