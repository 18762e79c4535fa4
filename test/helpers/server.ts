import pino from 'pino';
import { loadConfig, type Config } from '../../src/config.js';
import { generateToken } from '../../src/domain/token-format.js';
import { startServer, type RunningServer, type ServerOptions } from '../../src/server.js';
import { answered, recordConforming } from './conforming.js';
import { createMigratedDatabase, type TestDatabase } from './database.js';
import { typedClient, type TypedClient } from './typed-client.js';

export { answered };

export interface TestServer {
  server: RunningServer;
  url: string;
  /** The bootstrap owner token (every scope). */
  token: string;
  database: TestDatabase | undefined;
  config: Config;
  api: Api;
  /** The owner's typed `/v1` client (openapi-fetch over the generated `paths`); `as(token)` for another caller's. */
  client: TypedClient;
  as(token: string | null): TypedClient;
  close(): Promise<void>;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

export type Api = <T = any>(method: string, path: string, options?: RequestOptions) => Promise<ApiResponse<T>>;

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  /** Sent as is, instead of JSON of `body`. */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

/** How long a test's request may wait for its answer: under the tests' own 30 s. */
const REQUEST_LIMIT_MS = 25_000;

/**
 * A client for a running server over real HTTP; `token` defaults to the given one. Every
 * answer to a `/v1` operation is checked against the OpenAPI document (status, body,
 * headers): a test whose traffic drifts from the document fails where it happened.
 */
export function apiClient(baseUrl: string, defaultToken: string | null): Api {
  return async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? defaultToken : options.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | Buffer | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    // Bounded, so a request the server never answers fails naming itself instead of as the test's timeout.
    const signal = AbortSignal.timeout(REQUEST_LIMIT_MS);
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${baseUrl}${path}`, { method, headers, body, signal });
      text = await res.text();
    } catch (err) {
      if (signal.aborted) throw new Error(`${method} ${path} got no answer within ${REQUEST_LIMIT_MS} ms`);
      throw err;
    }
    recordConforming({ method, url: path, status: res.status, headers: res.headers, text });
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, text, body: parsed as any };
  };
}

/**
 * Starts the real server on a port of its own, against a fresh Postgres database (or the
 * given environment), with a known bootstrap token. Background jobs run only when `jobs`
 * asks for them (give BullMQ a prefix of the test's own).
 */
export async function startTestServer(
  env: Record<string, string | undefined> = {},
  options: { clock?: () => Date; jobs?: ServerOptions['jobs']; log?: ServerOptions['log']; print?: ServerOptions['print']; webDir?: string; listenTiming?: ServerOptions['listenTiming']; streamKeepAliveMs?: number; webhooks?: ServerOptions['webhooks'] } = {},
): Promise<TestServer> {
  const database = env.DATABASE_URL === undefined && !('DATA_DIR' in env) ? await createMigratedDatabase() : undefined;
  const token = env.TACK_BOOTSTRAP_TOKEN ?? generateToken();
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '100000',
    ...(database ? { DATABASE_URL: database.url } : {}),
    TACK_BOOTSTRAP_TOKEN: token,
    ...env,
  });
  const server = await startServer(config, { log: options.log ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }), print: options.print ?? (() => {}), clock: options.clock, jobs: options.jobs ?? false, webDir: options.webDir, listenTiming: options.listenTiming, streamKeepAliveMs: options.streamKeepAliveMs, webhooks: options.webhooks });
  return {
    server,
    url: server.url,
    token,
    database,
    config,
    api: apiClient(server.url, token),
    client: typedClient(server.url, token),
    as: (other) => typedClient(server.url, other),
    async close() {
      await server.close();
      await database?.drop();
    },
  };
}
