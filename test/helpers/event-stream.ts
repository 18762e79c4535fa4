import { sseFrames, type SseFrame } from '../../src/cli/sse-frames.js';
import { waitFor } from './wait.js';

export type Frame = SseFrame;

export interface OpenStream {
  status: number;
  headers: Headers;
  frames: Frame[];
  /** The events (frames with `event:`), parsed. */
  events(): { id: string; type: string; data: any }[];
  /** Waits until `n` events arrived (or `what` holds). */
  waitForEvents(n: number): Promise<{ id: string; type: string; data: any }[]>;
  ended: Promise<void>;
  close(): void;
}

/** Opens `GET /v1/events/stream` as a client would (null token: no Authorization, say a session cookie in `headers`), and keeps every frame it sends. */
export async function openStream(baseUrl: string, token: string | null, options: { query?: string; lastEventId?: string; headers?: Record<string, string> } = {}): Promise<OpenStream> {
  const abort = new AbortController();
  const headers: Record<string, string> = { ...(token === null ? {} : { authorization: `Bearer ${token}` }), accept: 'text/event-stream', ...options.headers };
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
  const res = await fetch(`${baseUrl}/v1/events/stream${options.query ? `?${options.query}` : ''}`, { headers, signal: abort.signal });
  const frames: Frame[] = [];
  let resolveEnded!: () => void;
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve));
  void (async () => {
    if (!res.body) return resolveEnded();
    const decoder = new TextDecoder();
    const parser = sseFrames();
    try {
      for await (const chunk of res.body) frames.push(...parser.push(decoder.decode(chunk as Uint8Array, { stream: true })));
    } catch {
      // Aborted by the test.
    }
    resolveEnded();
  })();
  const events = () => frames.filter((f) => f.event !== undefined).map((f) => ({ id: f.id!, type: f.event!, data: JSON.parse(f.data!) }));
  return {
    status: res.status,
    headers: res.headers,
    frames,
    events,
    waitForEvents: (n) => waitFor(`${n} events on the stream`, () => (events().length >= n ? events() : undefined)),
    ended,
    close: () => abort.abort(),
  };
}
