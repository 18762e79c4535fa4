import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseQuery } from 'node:querystring';

/**
 * A local fake of Slack's Web API (a real HTTP server on 127.0.0.1), for `SLACK_API_URL`.
 * It records every call and answers Slack-shaped JSON; tests program answers per method.
 * It also serves `response_url`s (`/response/<id>`), recorded with method `response`.
 */

export interface RecordedCall {
  /** Web API method (`chat.postMessage`), or `response` for a response_url post. */
  method: string;
  /** The request path, `/api/chat.postMessage` or `/response/<id>`. */
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  /** Form fields (JSON-looking values such as `blocks` decoded) or the JSON body. */
  body: Record<string, any>;
  raw: string;
}

export interface FakeResponse {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export type FakeHandler = FakeResponse | ((call: RecordedCall) => FakeResponse | Promise<FakeResponse>);

export interface FakeSlack {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** What SLACK_API_URL should be: `<url>/api/`. */
  apiUrl: string;
  calls: RecordedCall[];
  /** A fresh response_url served by the fake. */
  responseUrl(id?: string): string;
  /** Answers `method` this way from now on. */
  handle(method: string, handler: FakeHandler): void;
  /** Answers the next call of `method` this way, then falls back. */
  handleOnce(method: string, handler: FakeHandler): void;
  callsTo(method: string): RecordedCall[];
  /** Resolves with the first call (already made or still to come) that matches. */
  waitFor(predicate: (call: RecordedCall) => boolean, timeoutMs?: number): Promise<RecordedCall>;
  /** Forgets the calls (not the programmed answers). */
  clear(): void;
  close(): Promise<void>;
}

function decodeForm(raw: string): Record<string, any> {
  const out: Record<string, any> = {};
  for (const [key, value] of Object.entries(parseQuery(raw))) {
    const v = Array.isArray(value) ? value[0] : value;
    if (typeof v === 'string' && /^[[{]/.test(v)) {
      try {
        out[key] = JSON.parse(v);
        continue;
      } catch {
        // not JSON after all: keep the text
      }
    }
    out[key] = v;
  }
  return out;
}

function decodeBody(raw: string, contentType: string | undefined): Record<string, any> {
  if (raw === '') return {};
  if ((contentType ?? '').includes('application/json')) {
    try {
      return JSON.parse(raw) as Record<string, any>;
    } catch {
      return { _unparsed: raw };
    }
  }
  return decodeForm(raw);
}

let counter = 0;

function defaults(call: RecordedCall): FakeResponse {
  switch (call.method) {
    case 'response':
      return { body: 'ok' };
    case 'auth.test':
      return { body: { ok: true, url: 'https://example.slack.com/', team: 'Example', user: 'tack', team_id: 'T0001', user_id: 'UBOT', bot_id: 'BBOT' } };
    case 'users.info':
      return { body: { ok: true, user: { id: call.body.user, team_id: 'T0001', name: 'someone', tz: 'UTC', profile: {} } } };
    case 'chat.postMessage':
    case 'chat.update':
      return { body: { ok: true, channel: call.body.channel ?? 'C0001', ts: call.body.ts ?? `${Date.now() / 1000}`, message: { text: call.body.text } } };
    case 'chat.postEphemeral':
      return { body: { ok: true, message_ts: `${Date.now() / 1000}` } };
    case 'conversations.open':
      return { body: { ok: true, channel: { id: 'D0001' } } };
    default:
      return { body: { ok: true } };
  }
}

export async function startFakeSlack(): Promise<FakeSlack> {
  const calls: RecordedCall[] = [];
  const persistent = new Map<string, FakeHandler>();
  const once = new Map<string, FakeHandler[]>();
  const waiters = new Set<{ predicate: (c: RecordedCall) => boolean; resolve: (c: RecordedCall) => void }>();

  const answer = async (call: RecordedCall): Promise<FakeResponse> => {
    const queued = once.get(call.method);
    const handler = queued && queued.length > 0 ? queued.shift()! : persistent.get(call.method);
    if (!handler) return defaults(call);
    return typeof handler === 'function' ? handler(call) : handler;
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const path = (req.url ?? '/').split('?')[0]!;
        const contentType = req.headers['content-type'];
        const method = path.startsWith('/api/') ? path.slice('/api/'.length) : path.startsWith('/response/') ? 'response' : `unknown:${path}`;
        const call: RecordedCall = { method, path, authorization: req.headers.authorization, contentType, body: decodeBody(raw, contentType), raw };
        calls.push(call);
        for (const w of [...waiters]) {
          if (w.predicate(call)) {
            waiters.delete(w);
            w.resolve(call);
          }
        }
        const out = await answer(call);
        const payload = typeof out.body === 'string' ? out.body : JSON.stringify(out.body ?? { ok: true });
        res.writeHead(out.status ?? 200, {
          'content-type': typeof out.body === 'string' ? 'text/plain' : 'application/json; charset=utf-8',
          ...out.headers,
        });
        res.end(payload);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    apiUrl: `${url}/api/`,
    calls,
    responseUrl: (id) => `${url}/response/${id ?? `r${++counter}`}`,
    handle: (method, handler) => void persistent.set(method, handler),
    handleOnce(method, handler) {
      const queue = once.get(method) ?? [];
      queue.push(handler);
      once.set(method, queue);
    },
    callsTo: (method) => calls.filter((c) => c.method === method),
    waitFor(predicate, timeoutMs = 5_000) {
      const seen = calls.find(predicate);
      if (seen) return Promise.resolve(seen);
      return new Promise<RecordedCall>((resolve, reject) => {
        const waiter = {
          predicate,
          resolve: (c: RecordedCall) => {
            clearTimeout(timer);
            resolve(c);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`fake Slack: no matching call within ${timeoutMs} ms (calls: ${calls.map((c) => c.path).join(', ') || 'none'})`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    clear: () => void calls.splice(0, calls.length),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
