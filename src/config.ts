import { z } from 'zod';
import type { DbTimeouts } from './db/connect.js';
import { isWellFormedToken } from './domain/token-format.js';

/**
 * The environment, parsed once. Nothing else in tack reads `process.env`
 * (the CLI client reads its own TACK_URL/TACK_TOKEN through `loadClientEnv`).
 */

const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const optionalString = z.preprocess(blankToUndefined, z.string().optional());

const urlString = (protocols: string[]) =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .refine((s) => {
        try {
          return protocols.includes(new URL(s).protocol);
        } catch {
          return false;
        }
      }, `must be a URL (${protocols.join(' or ')})`)
      .optional(),
  );

// Timeouts: whole milliseconds, up to an hour; 0 turns a statement timeout off (a connect timeout is at least 100).
const MAX_MS = 3_600_000;
const millis = (fallback: number, min = 0) => z.preprocess(blankToUndefined, z.coerce.number().int().min(min).max(MAX_MS).default(fallback));

const envSchema = z.object({
  PORT: z.preprocess(blankToUndefined, z.coerce.number().int().min(0).max(65535).default(3000)),
  HOST: z.preprocess(blankToUndefined, z.string().min(1).default('127.0.0.1')),
  DATABASE_URL: urlString(['postgres:', 'postgresql:']),
  DATA_DIR: z.preprocess(blankToUndefined, z.string().min(1).default('./.tack')),
  REDIS_URL: urlString(['redis:', 'rediss:']),
  PUBLIC_BASE_URL: urlString(['http:', 'https:']),
  APP_URL: urlString(['http:', 'https:']),
  TACK_BOOTSTRAP_TOKEN: z.preprocess(
    blankToUndefined,
    z.string().refine(isWellFormedToken, 'must be a well-formed tack token (tack_live_…, with a valid checksum)').optional(),
  ),
  TLS_CERT_FILE: optionalString,
  TLS_KEY_FILE: optionalString,
  RATE_LIMIT_PER_MINUTE: z.preprocess(blankToUndefined, z.coerce.number().int().min(1).max(1_000_000).default(600)),
  SLACK_SIGNING_SECRET: optionalString,
  SLACK_BOT_TOKEN: optionalString,
  SLACK_APP_TOKEN: optionalString,
  SLACK_ORG: z.preprocess(blankToUndefined, z.string().min(1).default('default')),
  SLACK_API_URL: urlString(['http:', 'https:']),
  GITHUB_WEBHOOK_SECRET: optionalString,
  GITHUB_ORG: z.preprocess(blankToUndefined, z.string().min(1).default('default')),
  GITHUB_AGENT_LOGINS: optionalString,
  REMINDER_HOUR: z.preprocess(blankToUndefined, z.coerce.number().int().min(0).max(23).default(9)),
  DATABASE_STATEMENT_TIMEOUT_MS: millis(5_000),
  DATABASE_JOB_STATEMENT_TIMEOUT_MS: millis(60_000),
  DATABASE_CONNECT_TIMEOUT_MS: millis(5_000, 100),
  HTTP_REQUEST_TIMEOUT_MS: millis(60_000, 100),
  HTTP_IDLE_TIMEOUT_MS: millis(30_000, 100),
  WEBHOOK_ALLOW_PRIVATE: z.preprocess(blankToUndefined, z.enum(['0', '1']).default('0')),
  LOG_LEVEL: z.preprocess(
    blankToUndefined,
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
});

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  redisUrl: string | undefined;
  publicBaseUrl: string;
  /**
   * True when neither PUBLIC_BASE_URL nor APP_URL was given (the default is then `${APP_URL}/p`
   * of the local address): the server then names the port it really got (PORT=0).
   */
  publicBaseUrlIsDefault: boolean;
  /** Where people open the web app (sign-in links, tack's own origin); no trailing slash. */
  appUrl: string;
  /** True when APP_URL was not given: the server then names the port it really got (PORT=0). */
  appUrlIsDefault: boolean;
  bootstrapToken: string | undefined;
  tls: { certFile: string; keyFile: string } | undefined;
  rateLimitPerMinute: number;
  slack: {
    signingSecret: string | undefined;
    botToken: string | undefined;
    appToken: string | undefined;
    org: string;
    apiUrl: string | undefined;
  };
  /** GitHub's webhook deliveries (contract §12); without a secret `/github/webhooks` answers 404. */
  github: {
    webhookSecret: string | undefined;
    /** Slug of the organization whose cards GitHub moves. */
    org: string;
    /** Logins (lower-case) whose merges are an agent's, besides `[bot]` accounts (`GITHUB_AGENT_LOGINS`). */
    agentLogins: string[];
  };
  reminderHour: number;
  /** Bounds on waiting for Postgres (milliseconds); see `DbTimeouts`. PGlite ignores them. */
  database: {
    /** Statements of requests (HTTP, Slack, MCP). */
    requests: DbTimeouts;
    /** Statements of the background jobs and cleanups. */
    jobs: DbTimeouts;
  };
  /** Bounds on a client's connection (milliseconds); see `src/http/timeouts.ts`. */
  http: {
    /** Headers and body of one request must arrive within this (408 after). */
    requestTimeoutMs: number;
    /** A connection silent this long, while no request of it is being worked on, is closed. */
    idleTimeoutMs: number;
  };
  /** Webhooks may reach private, loopback and link-local addresses (`WEBHOOK_ALLOW_PRIVATE=1`: tests, a closed network). */
  webhookAllowPrivate: boolean;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
}

export class ConfigError extends Error {
  constructor(readonly variable: string, detail: string) {
    super(`${variable}: ${detail}`);
    this.name = 'ConfigError';
  }
}

/** Parses an environment (default `process.env`); throws ConfigError naming the first bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0] ?? 'environment');
    const shown = env[variable];
    // URLs may carry a password (postgres://user:password@host), so they are not echoed either.
    const value = shown === undefined || /TOKEN|SECRET|KEY|URL/.test(variable) ? '' : ` (got ${JSON.stringify(shown)})`;
    throw new ConfigError(variable, `${issue.message}${value}`);
  }
  const e = parsed.data;
  if ((e.TLS_CERT_FILE === undefined) !== (e.TLS_KEY_FILE === undefined)) {
    const missing = e.TLS_CERT_FILE === undefined ? 'TLS_CERT_FILE' : 'TLS_KEY_FILE';
    throw new ConfigError(missing, 'TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  }
  const tls = e.TLS_CERT_FILE && e.TLS_KEY_FILE ? { certFile: e.TLS_CERT_FILE, keyFile: e.TLS_KEY_FILE } : undefined;
  const scheme = tls ? 'https' : 'http';
  const appUrl = (e.APP_URL ?? `${scheme}://${hostForUrl(e.HOST)}:${e.PORT}`).replace(/\/+$/, '');
  // Public links are opened where people open the app: behind a proxy, APP_URL names it.
  const publicBaseUrl = (e.PUBLIC_BASE_URL ?? `${appUrl}/p`).replace(/\/+$/, '');
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    redisUrl: e.REDIS_URL,
    publicBaseUrl,
    publicBaseUrlIsDefault: e.PUBLIC_BASE_URL === undefined && e.APP_URL === undefined,
    appUrl,
    appUrlIsDefault: e.APP_URL === undefined,
    bootstrapToken: e.TACK_BOOTSTRAP_TOKEN,
    tls,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    slack: {
      signingSecret: e.SLACK_SIGNING_SECRET,
      botToken: e.SLACK_BOT_TOKEN,
      appToken: e.SLACK_APP_TOKEN,
      org: e.SLACK_ORG,
      apiUrl: e.SLACK_API_URL,
    },
    github: {
      webhookSecret: e.GITHUB_WEBHOOK_SECRET,
      org: e.GITHUB_ORG,
      agentLogins: (e.GITHUB_AGENT_LOGINS ?? '').split(',').map((l) => l.trim().toLowerCase()).filter((l) => l !== ''),
    },
    reminderHour: e.REMINDER_HOUR,
    database: {
      requests: { statementMs: e.DATABASE_STATEMENT_TIMEOUT_MS, connectMs: e.DATABASE_CONNECT_TIMEOUT_MS },
      jobs: { statementMs: e.DATABASE_JOB_STATEMENT_TIMEOUT_MS, connectMs: e.DATABASE_CONNECT_TIMEOUT_MS },
    },
    http: { requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS, idleTimeoutMs: e.HTTP_IDLE_TIMEOUT_MS },
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE === '1',
    logLevel: e.LOG_LEVEL,
  };
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
