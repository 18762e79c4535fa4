import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { PrivateWebhookAddress, resolveWebhookHost, type ResolvedAddress, type WebhookPolicy } from '../src/domain/webhook-addresses.js';
import type { AttemptOutcome } from '../src/domain/webhook-outbox.js';

/** A 2xx within this long is success; anything slower is a failed attempt. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

// What of a receiver's answer is read before the connection is dropped: its status is what counts.
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface SendOptions {
  policy: WebhookPolicy;
  timeoutMs?: number;
  /** A run's kept-alive connections (`RunConnections`); without, each attempt has its own. */
  connections?: RunConnections;
}

/**
 * The connections of one run of an endpoint's attempts, sent one after another: kept alive
 * and used again while the host resolves to the same checked address (one agent per address,
 * one socket each), so a run of 50 does not open 50 connections. Every attempt is still
 * resolved and checked first; a connection only ever goes to an address that was checked.
 * `close` ends them when the run is done.
 */
export class RunConnections {
  readonly #agents = new Map<string, http.Agent>();

  agentFor(target: URL, pinned: ResolvedAddress): http.Agent {
    const key = `${target.protocol}//${pinned.address}:${target.port}`;
    let agent = this.#agents.get(key);
    if (!agent) {
      const options = { keepAlive: true, maxSockets: 1 };
      agent = target.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
      this.#agents.set(key, agent);
    }
    return agent;
  }

  close(): void {
    for (const agent of this.#agents.values()) agent.destroy();
    this.#agents.clear();
  }
}

/**
 * POSTs one signed delivery. The host is resolved and every address checked first (the
 * SSRF guard, on every attempt), and the connection goes to the checked address itself: the
 * request's own lookup answers with it, so no second resolution can swap in another
 * (DNS rebinding), while the Host header and TLS server name stay the URL's. Redirects are
 * never followed (a 3xx is a failed attempt).
 */
export async function sendDelivery(url: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const target = new URL(url);
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolveWebhookHost(target, options.policy);
  } catch (err) {
    if (err instanceof PrivateWebhookAddress) return failure(null, elapsed(), 'refused: the URL resolves to a private, loopback or link-local address');
    throw err;
  }
  const pinned = addresses[0];
  if (!pinned) return failure(null, elapsed(), 'the host name does not resolve');
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    /** `keep`: the answer was read to its end, so a kept-alive connection may serve the next attempt. */
    const settle = (outcome: AttemptOutcome, keep = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!keep || !options.connections) req.destroy();
      resolve(outcome);
    };
    const lookup: LookupFunction = (_hostname, opts, callback) => {
      if (opts.all) (callback as unknown as (err: null, all: ResolvedAddress[]) => void)(null, [pinned]);
      else callback(null, pinned.address, pinned.family);
    };
    const client = target.protocol === 'https:' ? https : http;
    const req = client.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'tack-webhooks' },
        lookup,
        agent: options.connections ? options.connections.agentFor(target, pinned) : false,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) done(false);
        });
        const done = (ended: boolean) => {
          if (status >= 200 && status < 300) settle({ ok: true, responseStatus: status, durationMs: elapsed(), error: null }, ended);
          else if (status >= 300 && status < 400) settle(failure(status, elapsed(), `redirect (HTTP ${status}) not followed`));
          else settle(failure(status, elapsed(), `HTTP ${status}`));
        };
        res.on('end', () => done(true));
        res.on('error', () => done(false));
      },
    );
    const timer = setTimeout(() => settle(failure(null, elapsed(), `no answer within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => settle(failure(null, elapsed(), networkError(err))));
    req.end(body);
  });
}

function failure(status: number | null, durationMs: number, error: string): AttemptOutcome {
  return { ok: false, responseStatus: status, durationMs, error };
}

const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed',
};

/** A short reason for a failed connection, without addresses or paths. */
function networkError(err: NodeJS.ErrnoException): string {
  if (err.code && NETWORK_ERRORS[err.code]) return NETWORK_ERRORS[err.code]!;
  if (err.code?.startsWith('ERR_TLS') || err.code?.includes('CERT') || err.code?.startsWith('ERR_SSL')) return `TLS error (${err.code})`;
  return err.code ? `network error (${err.code})` : 'network error';
}
