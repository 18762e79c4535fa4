import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliError, EXIT } from '../client/exit.js';
import { clientTimeoutMs, DEFAULT_URL, normalizeUrl, type ClientTarget } from '../client/target.js';

// Where `tack`'s client commands send their requests, and the login `tack login` stores for
// them. (The server's environment is src/config.ts; `tack mcp` reads its own,
// src/mcp/stdio-env.ts, and never the stored login.)

export interface StoredLogin {
  url: string;
  token: string;
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.length > 0 ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'tack', 'config.json');
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
