import http from 'node:http';

/** One open Server-Sent Events stream, as a light client holds it: a raw request, frames split by hand. */
export interface SseClient {
  /** Resolves once the server's first comment line (`: connected`) arrived. */
  ready: Promise<void>;
  close(): void;
}

/**
 * Opens `GET url` as an event stream and calls `onEvent(id, at)` for each frame with an `id:`
 * line, `at` being `performance.now()` when its bytes arrived. Nothing else of a frame is
 * parsed: the client is the floor a thousand streams can share one process with.
 */
export function openStream(url: string, headers: Record<string, string>, onEvent: (id: string, at: number) => void): SseClient {
  let buffer = '';
  let connected: () => void = () => {};
  let failed: (err: Error) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    connected = resolve;
    failed = reject;
  });
  const req = http.get(url, { headers: { accept: 'text/event-stream', ...headers }, agent: false }, (res) => {
    if (res.statusCode !== 200) {
      failed(new Error(`stream answered ${res.statusCode}`));
      res.resume();
      return;
    }
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      const at = performance.now();
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (frame.startsWith('id: ')) {
          const nl = frame.indexOf('\n');
          onEvent(frame.slice(4, nl < 0 ? undefined : nl), at);
        } else if (frame.startsWith(': connected')) connected();
      }
    });
  });
  req.on('error', (err) => failed(err));
  return { ready, close: () => req.destroy() };
}

/** Opens `count` streams, `parallel` at a time (a thousand connects at once overflow a small accept queue). */
export async function openStreams(count: number, url: string, headers: Record<string, string>, onEvent: (id: string, at: number) => void, parallel = 50): Promise<SseClient[]> {
  const clients: SseClient[] = [];
  for (let i = 0; i < count; i += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - i) }, () => openStream(url, headers, onEvent));
    clients.push(...batch);
    await Promise.all(batch.map((c) => c.ready));
  }
  return clients;
}

/** Percentile by nearest rank of sorted numbers. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
