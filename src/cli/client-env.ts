import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliError, EXIT } from './exit.js';

/**
 * The client side's own environment: where the server is and which token to send. (The
 * server's environment is `src/config.ts`; the CLI is a separate program that only talks
 * to `/v1`.)
 */
export const DEFAULT_URL = 'http://127.0.0.1:3000';

export interface StoredLogin {
  url: string;
  token: string;
}

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

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.length > 0 ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'tack', 'config.json');
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

export function readStoredLogin(env: NodeJS.ProcessEnv = process.env): StoredLogin | undefined {
  let text: string;
  try {
    text = readFileSync(configPath(env), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as Partial<StoredLogin>;
    if (typeof parsed.url === 'string' && typeof parsed.token === 'string') return { url: parsed.url, token: parsed.token };
  } catch {
    // A damaged file is the same as none: `tack login` rewrites it.
  }
  return undefined;
}

/** Writes the login with mode 0600 (directory 0700), replacing the file in one rename. */
export function storeLogin(login: StoredLogin, env: NodeJS.ProcessEnv = process.env): string {
  const path = configPath(env);
  const dir = join(path, '..');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, path);
  return path;
}

export function forgetLogin(env: NodeJS.ProcessEnv = process.env): boolean {
  const path = configPath(env);
  try {
    rmSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The server URL: `TACK_URL`, else the one stored by `tack login`, else the local default. */
export function clientUrl(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TACK_URL) return normalizeUrl(env.TACK_URL);
  const stored = readStoredLogin(env);
  return stored ? normalizeUrl(stored.url) : DEFAULT_URL;
}

/**
 * URL and token for a client command. `TACK_TOKEN` wins; otherwise the stored login, but
 * only for the server it was stored for, so pointing TACK_URL elsewhere never sends it there.
 */
export function clientTarget(env: NodeJS.ProcessEnv = process.env): ClientTarget {
  const url = clientUrl(env);
  const timeoutMs = clientTimeoutMs(env);
  if (env.TACK_TOKEN) return { url, token: env.TACK_TOKEN.trim(), timeoutMs };
  const stored = readStoredLogin(env);
  if (stored && normalizeUrl(stored.url) === url) return { url, token: stored.token, timeoutMs };
  throw new CliError(
    stored
      ? `no token for ${url}: set TACK_TOKEN, or run \`tack login\` for this server (the stored login is for ${stored.url})`
      : 'no token: set TACK_TOKEN, or run `tack login`',
    EXIT.auth,
  );
}

/**
 * URL and token for `tack mcp`: `TACK_TOKEN` only (contract section 7). An agent started
 * without a token of its own must not act as whoever ran `tack login` on this machine, so
 * the stored login is never read: neither its token nor its URL (a token is never sent to a
 * server it was not configured for). Exit 2 (usage) without it.
 */
export function mcpTarget(env: NodeJS.ProcessEnv = process.env): ClientTarget {
  const token = env.TACK_TOKEN?.trim();
  if (!token) {
    throw new CliError(
      'TACK_TOKEN is not set: `tack mcp` acts with TACK_TOKEN only, never with the login stored by `tack login`. ' +
        'Set it to the token the agent acts with (make one with `tack tokens create --name <agent> --scopes read,write --agent`).',
      EXIT.usage,
    );
  }
  return { url: env.TACK_URL ? normalizeUrl(env.TACK_URL) : DEFAULT_URL, token, timeoutMs: clientTimeoutMs(env) };
}

/** Which tools `tack mcp` offers (of those its token can call). */
export interface McpToolChoice {
  /** `TACK_MCP_TOOLSETS`: the groups of tools offered (getMe always); all when unset. */
  toolsets?: string[] | undefined;
  /** `TACK_MCP_READ_ONLY=1`: the read tools only, whatever the token may do. */
  readOnly: boolean;
}

export function mcpToolChoice(env: NodeJS.ProcessEnv = process.env): McpToolChoice {
  const raw = env.TACK_MCP_TOOLSETS?.trim();
  const toolsets = raw ? raw.split(',').map((s) => s.trim().toLowerCase()).filter((s) => s.length > 0) : undefined;
  const readOnly = env.TACK_MCP_READ_ONLY?.trim().toLowerCase() ?? '';
  if (!['', '0', '1', 'true', 'false'].includes(readOnly)) throw new CliError(`TACK_MCP_READ_ONLY is 1 (read tools only) or 0, not "${env.TACK_MCP_READ_ONLY}"`, EXIT.usage);
  return { toolsets, readOnly: readOnly === '1' || readOnly === 'true' };
}
