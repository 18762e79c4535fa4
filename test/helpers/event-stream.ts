import { waitFor } from './wait.js';

/** One Server-Sent Events message as received: its fields (comments kept apart). */
export interface Frame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

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

/** Opens `GET /v1/events/stream` as a client would, and keeps every frame it sends. */
export async function openStream(baseUrl: string, token: string, options: { query?: string; lastEventId?: string; headers?: Record<string, string> } = {}): Promise<OpenStream> {
  const abort = new AbortController();
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...options.headers };
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
  const res = await fetch(`${baseUrl}/v1/events/stream${options.query ? `?${options.query}` : ''}`, { headers, signal: abort.signal });
  const frames: Frame[] = [];
  let resolveEnded!: () => void;
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve));
  void (async () => {
    if (!res.body) return resolveEnded();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const frame: Frame = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) frame.comment = line.slice(1).trim();
            else {
              const at = line.indexOf(':');
              const name = line.slice(0, at) as 'id' | 'event' | 'data';
              frame[name] = line.slice(at + 1).replace(/^ /, '');
            }
          }
          frames.push(frame);
        }
      }
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
