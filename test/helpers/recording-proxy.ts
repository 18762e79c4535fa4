import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  idempotencyKey: string | undefined;
}

export interface RecordingProxy {
  url: string;
  /** Every request that reached the proxy, in order. */
  requests: RecordedRequest[];
  /**
   * The next request matching `match` is forwarded and answered by the server, but its
   * answer never reaches the client: the connection is cut instead (a timeout or a network
   * failure after the server committed).
   */
  dropNextAnswer(match: (r: RecordedRequest) => boolean): void;
  close(): Promise<void>;
}

/** A plain HTTP proxy in front of a test server that records what clients send. */
export async function recordingProxy(target: string): Promise<RecordingProxy> {
  const requests: RecordedRequest[] = [];
  let drop: ((r: RecordedRequest) => boolean) | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const key = req.headers['idempotency-key'];
      const record = { method: req.method ?? 'GET', url: req.url ?? '/', idempotencyKey: Array.isArray(key) ? key[0] : key };
      requests.push(record);
      const cut = drop?.(record) === true;
      if (cut) drop = undefined;
      const upstream = httpRequest(new URL(record.url, target), { method: record.method, headers: forwardable(req) }, (answer) => {
        const body: Buffer[] = [];
        answer.on('data', (c: Buffer) => body.push(c));
        answer.on('end', () => {
          if (cut) {
            req.socket.destroy();
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(body));
        });
      });
      upstream.on('error', () => res.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    dropNextAnswer(match) {
      drop = match;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function forwardable(req: IncomingMessage): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && name !== 'host' && name !== 'connection') headers[name] = value;
  }
  return headers;
}
