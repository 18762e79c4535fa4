import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { VERSION } from '../version.js';
import { CLI_PRODUCT, type MCP_PRODUCT } from '../domain/faces.js';
import type { ClientTarget } from './client-env.js';

/** The error body every /v1 error carries (api-v1 part 7). */
export interface ErrorEnvelope {
  code: string;
  http_status: number;
  user_message: string;
  request_id?: string;
  errors?: { field: string; code: string; message: string }[];
}

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path under /v1, already filled in: `/tokens/tok_123`. */
  path: string;
  query?: Record<string, string | string[]>;
  /** A JSON body; undefined sends none. */
  body?: unknown;
  /** The Idempotency-Key of a write; a new one is made when absent. Either way, retries reuse it. */
  idempotencyKey?: string;
}

export interface ApiResponse {
  status: number;
  /** The body exactly as received (empty for 204). */
  text: string;
  json: unknown;
  headers: IncomingHttpHeaders;
}

/** An answer that is not a success, or no answer at all (`http_status` 0). */
export class ApiError extends Error {
  constructor(readonly envelope: ErrorEnvelope) {
    super(envelope.user_message);
    this.name = 'ApiError';
  }

  get status(): number {
    return this.envelope.http_status;
  }
}

export interface ApiClientOptions {
  /** Attempts in all, first one included. */
  maxAttempts?: number;
  /** Time limit of one attempt. */
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /**
   * Whether a 429 is waited out and retried (a person at a command line, told so by `onWait`)
   * or answered at once as the error it is (`tack mcp`: the agent decides, and the call that
   * hit the limit says so).
   */
  retryRateLimited?: boolean;
  /** Told before each wait for a retry that the server asked for (429, 503), with how long. */
  onWait?: (wait: RetryWait) => void;
  /** The product named in the User-Agent: the CLI's own unless `tack mcp` says it is itself (its calls are the MCP face). */
  product?: typeof CLI_PRODUCT | typeof MCP_PRODUCT;
}

/** A retry the client is about to wait for. */
export interface RetryWait {
  status: number;
  code: string;
  ms: number;
}

const BASE_DELAY_MS = 250;
const MAX_DELAY_MS = 8_000;
const MAX_RETRY_AFTER_MS = 60_000;
/** Network failures where nothing reached the server: say so at once instead of retrying. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ERR_INVALID_URL']);

/**
 * A small client of `/v1`. Every write carries an `Idempotency-Key`; a 429 (after its
 * `Retry-After`), a 5xx, an `idempotency_key_in_use` conflict or a connection lost mid-way is
 * retried with backoff under the same key, so the server applies the write at most once and
 * replays its first answer.
 */
export class ApiClient {
  readonly #maxAttempts: number;
  readonly #timeoutMs: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #retryRateLimited: boolean;
  readonly #onWait: ((wait: RetryWait) => void) | undefined;
  readonly #userAgent: string;

  constructor(readonly target: ClientTarget, options: ApiClientOptions = {}) {
    this.#maxAttempts = options.maxAttempts ?? 5;
    this.#timeoutMs = options.timeoutMs ?? target.timeoutMs ?? 60_000;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#retryRateLimited = options.retryRateLimited ?? true;
    this.#onWait = options.onWait;
    this.#userAgent = `${options.product ?? CLI_PRODUCT}/${VERSION}`;
  }

  async request(req: ApiRequest): Promise<ApiResponse> {
    const url = new URL(`${this.target.url}/v1${req.path}`);
    for (const [name, value] of Object.entries(req.query ?? {})) {
      for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(name, v);
    }
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.target.token}`,
      accept: 'application/json',
      'user-agent': this.#userAgent,
    };
    if (req.method !== 'GET') headers['idempotency-key'] = req.idempotencyKey ?? randomUUID();
    let body: string | undefined;
    if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }

    let timeouts = 0;
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= this.#maxAttempts;
      let res: RawResponse;
      try {
        res = await send(url, req.method, headers, body, this.#timeoutMs);
      } catch (err) {
        const code = networkCode(err);
        // A server that let a whole timeout pass is tried once more (a write under the same
        // key), not for minutes on end.
        if (code === 'timeout' && ++timeouts >= 2) {
          const seconds = Math.round(this.#timeoutMs / 100) / 10;
          throw new ApiError({ code: 'unreachable', http_status: 0, user_message: `tack at ${this.target.url} did not answer within ${seconds} s, twice (TACK_TIMEOUT sets the limit)` });
        }
        if (last || UNREACHABLE.has(code)) {
          throw new ApiError({ code: 'unreachable', http_status: 0, user_message: `cannot reach tack at ${this.target.url} (${code})` });
        }
        await this.#sleep(backoff(attempt));
        continue;
      }
      const { status, text } = res;
      if (status >= 200 && status < 300) return { status, text, json: text ? parseJson(text) : undefined, headers: res.headers };
      const envelope = envelopeOf(status, res.headers, text);
      if (!last && retryable(status, envelope.code) && (status !== 429 || this.#retryRateLimited)) {
        const asked = retryAfter(header(res.headers, 'retry-after'));
        if (asked !== undefined) this.#onWait?.({ status, code: envelope.code, ms: asked });
        await this.#sleep(asked ?? backoff(attempt));
        continue;
      }
      throw new ApiError(envelope);
    }
  }
}

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * One HTTP exchange with node:http(s). Not `fetch`: loading undici costs a command line
 * about 100 ms at start-up, more than the whole request.
 */
async function send(url: URL, method: string, headers: Record<string, string>, body: string | undefined, timeoutMs: number): Promise<RawResponse> {
  const transport = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise((resolve, reject) => {
    const request = transport.request(url, { method, headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    request.setTimeout(timeoutMs, () => request.destroy(Object.assign(new Error('timed out'), { code: 'timeout' })));
    request.on('error', reject);
    request.end(body);
  });
}

function header(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

function retryable(status: number, code: string): boolean {
  return status === 429 || status >= 500 || (status === 409 && code === 'idempotency_key_in_use');
}

/** 250 ms, 500 ms, 1 s, … with a little jitter so clients that failed together spread out. */
function backoff(attempt: number): number {
  const base = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (attempt - 1));
  return base + Math.floor(Math.random() * (base / 4));
}

/** `Retry-After` as seconds or an HTTP date, in ms (bounded). */
export function retryAfter(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}

function networkCode(err: unknown): string {
  const e = err as { name?: string; code?: string };
  return e.code ?? e.name ?? 'network error';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function envelopeOf(status: number, headers: IncomingHttpHeaders, text: string): ErrorEnvelope {
  const parsed = parseJson(text) as Partial<ErrorEnvelope> | undefined;
  const requestId = header(headers, 'x-request-id') ?? undefined;
  if (parsed && typeof parsed.code === 'string' && typeof parsed.user_message === 'string') {
    return { ...parsed, code: parsed.code, user_message: parsed.user_message, http_status: status, request_id: parsed.request_id ?? requestId };
  }
  return {
    code: `http_${status}`,
    http_status: status,
    user_message: `the server answered HTTP ${status} without an error envelope (is TACK_URL a tack server?)`,
    ...(requestId ? { request_id: requestId } : {}),
  };
}
