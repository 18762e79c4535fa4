import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseQuery } from 'node:querystring';

/**
 * A local fake of Slack's Web API (a real HTTP server on 127.0.0.1), for `SLACK_API_URL`.
 * It records every call and answers Slack-shaped JSON; tests program answers per method.
 * It also serves `response_url`s (`/response/<id>`), recorded with method `response`.
 *
 * Messages the app posts (chat.postMessage) are kept per channel, with their metadata;
 * chat.update changes them and conversations.history returns them newest first (metadata
 * only with `include_all_metadata`, and only those after `oldest` when given; thread replies
 * left out, conversations.replies gives a thread), as Slack does. conversations.open gives each user a
 * DM channel of their own (`D` + the user id without its `U`). chat.getPermalink answers
 * Slack's archive link of the message; views.open, views.update and views.publish echo the
 * view (with an id and a hash). A trigger_id from `trigger()` lives 3 seconds, as Slack's
 * does: views.open with an older one answers `expired_trigger_id`. Each call keeps the
 * answer it got (`response`).
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
  /** What the fake answered, once it has. */
  response?: FakeResponse;
}

export interface FakeResponse {
  /** Drop the connection without answering (a network failure, as the caller sees it). */
  destroy?: boolean;
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export type FakeHandler = FakeResponse | ((call: RecordedCall) => FakeResponse | Promise<FakeResponse>);

/** A message kept in a channel of the fake. */
export interface FakeMessage {
  ts: string;
  text: string | undefined;
  blocks: any[] | undefined;
  metadata: { event_type: string; event_payload: Record<string, unknown> } | undefined;
  /** The parent's ts for a reply in a thread. */
  thread_ts?: string;
}

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
  /** The messages of a channel, oldest first. */
  messages(channel: string): FakeMessage[];
  /** What the fake answers by default (posting, updating or reading messages); for handlers that add to it. */
  answerAsSlack(call: RecordedCall): FakeResponse;
  /**
   * A trigger_id as Slack gives one with an interaction, valid 3 seconds: views.open with it
   * later answers `expired_trigger_id`, as Slack does (trigger ids the fake did not issue are
   * taken as fresh).
   */
  trigger(): string;
  /** Answers `method` as Slack would, `ms` later (a slow Slack). */
  delay(method: string, ms: number): void;
  /** Forgets the calls (not the programmed answers, nor the messages). */
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
let sequence = 0;
/** How long Slack's trigger_id lives: views.open must come within 3 seconds of the interaction. */
const TRIGGER_TTL_MS = 3_000;

/** A ts unique within the process, shaped like Slack's (`seconds.micro`). */
function nextTs(): string {
  return `${Math.floor(Date.now() / 1000)}.${String(++sequence).padStart(6, '0')}`;
}

/** The DM channel of a user: one per user, stable. */
export function dmChannelOf(user: string): string {
  return `D${user.replace(/^U/, '')}`;
}

function defaults(call: RecordedCall, channels: Map<string, FakeMessage[]>): FakeResponse {
  switch (call.method) {
    case 'response':
      return { body: 'ok' };
    case 'auth.test':
      return { body: { ok: true, url: 'https://example.slack.com/', team: 'Example', user: 'tack', team_id: 'T0001', user_id: 'UBOT', bot_id: 'BBOT' } };
    case 'users.info':
      return { body: { ok: true, user: { id: call.body.user, team_id: 'T0001', name: 'someone', tz: 'UTC', profile: {} } } };
    case 'chat.postMessage': {
      const channel = String(call.body.channel ?? 'C0001');
      const message: FakeMessage = { ts: nextTs(), text: call.body.text, blocks: call.body.blocks, metadata: call.body.metadata, ...(call.body.thread_ts ? { thread_ts: String(call.body.thread_ts) } : {}) };
      channels.set(channel, [...(channels.get(channel) ?? []), message]);
      return { body: { ok: true, channel, ts: message.ts, message: { text: call.body.text } } };
    }
    case 'chat.update': {
      const channel = String(call.body.channel ?? 'C0001');
      const kept = channels.get(channel)?.find((m) => m.ts === call.body.ts);
      if (kept) Object.assign(kept, { text: call.body.text, blocks: call.body.blocks });
      return { body: { ok: true, channel, ts: call.body.ts ?? nextTs(), message: { text: call.body.text } } };
    }
    case 'conversations.history': {
      const withMetadata = call.body.include_all_metadata === true || call.body.include_all_metadata === 'true';
      // Like Slack: only messages after `oldest` (a ts) when it is given.
      const oldest = call.body.oldest === undefined ? undefined : Number(call.body.oldest);
      // Like Slack: replies in threads are not in the history, only their parents.
      const kept = (channels.get(String(call.body.channel)) ?? []).filter((m) => !m.thread_ts && (oldest === undefined || Number(m.ts) > oldest));
      const messages = [...kept].reverse().map((m) => ({
        type: 'message',
        user: 'UBOT',
        bot_id: 'BBOT',
        ts: m.ts,
        text: m.text,
        ...(m.blocks ? { blocks: m.blocks } : {}),
        ...(withMetadata && m.metadata ? { metadata: m.metadata } : {}),
      }));
      return { body: { ok: true, messages, has_more: false, response_metadata: { next_cursor: '' } } };
    }
    case 'conversations.replies': {
      // A thread: its parent first, then its replies, oldest first (metadata with include_all_metadata).
      const withMetadata = call.body.include_all_metadata === true || call.body.include_all_metadata === 'true';
      const parent = String(call.body.ts);
      const thread = (channels.get(String(call.body.channel)) ?? []).filter((m) => m.ts === parent || m.thread_ts === parent);
      if (thread.length === 0) return { body: { ok: false, error: 'thread_not_found' } };
      const messages = thread.map((m) => ({ type: 'message', user: 'UBOT', bot_id: 'BBOT', ts: m.ts, thread_ts: m.thread_ts ?? m.ts, text: m.text, ...(withMetadata && m.metadata ? { metadata: m.metadata } : {}) }));
      return { body: { ok: true, messages, has_more: false, response_metadata: { next_cursor: '' } } };
    }
    case 'chat.getPermalink': {
      const channel = String(call.body.channel);
      return { body: { ok: true, channel, permalink: `https://example.slack.com/archives/${channel}/p${String(call.body.message_ts).replace('.', '')}` } };
    }
    case 'views.open':
    case 'views.publish':
      return { body: { ok: true, view: { id: `V${++sequence}`, hash: `h${sequence}`, ...(call.body.view ?? {}) } } };
    case 'views.update':
      return { body: { ok: true, view: { id: call.body.view_id ?? `V${++sequence}`, hash: `h${++sequence}`, ...(call.body.view ?? {}) } } };
    case 'chat.postEphemeral':
      return { body: { ok: true, message_ts: `${Date.now() / 1000}` } };
    case 'conversations.open':
      return { body: { ok: true, channel: { id: call.body.users ? dmChannelOf(String(call.body.users).split(',')[0]!) : 'D0001' } } };
    default:
      return { body: { ok: true } };
  }
}

export async function startFakeSlack(): Promise<FakeSlack> {
  const calls: RecordedCall[] = [];
  const persistent = new Map<string, FakeHandler>();
  const once = new Map<string, FakeHandler[]>();
  const waiters = new Set<{ predicate: (c: RecordedCall) => boolean; resolve: (c: RecordedCall) => void }>();
  const channels = new Map<string, FakeMessage[]>();

  const triggers = new Map<string, number>();
  const answer = async (call: RecordedCall): Promise<FakeResponse> => {
    if (call.method === 'views.open') {
      const issued = triggers.get(String(call.body.trigger_id));
      if (issued !== undefined && Date.now() - issued > TRIGGER_TTL_MS) return { body: { ok: false, error: 'expired_trigger_id' } };
    }
    const queued = once.get(call.method);
    const handler = queued && queued.length > 0 ? queued.shift()! : persistent.get(call.method);
    if (!handler) return defaults(call, channels);
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
        call.response = out;
        if (out.destroy) {
          req.socket.destroy();
          return;
        }
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
    messages: (channel) => [...(channels.get(channel) ?? [])],
    answerAsSlack: (call) => defaults(call, channels),
    trigger() {
      const id = `${Date.now()}.${++counter}.${Math.random().toString(16).slice(2)}`;
      triggers.set(id, Date.now());
      return id;
    },
    delay(method, ms) {
      persistent.set(method, async (call) => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        return defaults(call, channels);
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
