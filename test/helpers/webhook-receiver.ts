import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: Record<string, string>;
  body: string;
  path: string;
}

/** A local webhook endpoint that records what reaches it and answers with `status()`. */
export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** The status the next requests get (200 by default), unless `statusFor` answers for the request's path. */
  status: number;
  statusFor?: (path: string) => number | undefined;
  /** TCP connections accepted so far. */
  connections: number;
  /** Stops listening: connections are refused until `up()`. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

/** `keepAlive`: answers keep the connection open, as most receivers do (by default each answer closes it). */
export async function startReceiver(options: { keepAlive?: boolean } = {}): Promise<Receiver> {
  let server: http.Server | undefined;
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    status: 200,
    connections: 0,
    async down() {
      const s = server;
      server = undefined;
      if (s) await new Promise<void>((resolve) => (s.close(() => resolve()), s.closeAllConnections()));
    },
    async up() {
      server = http.createServer((req, res) => {
        let body = '';
        req.setEncoding('utf8');
        req.on('data', (d: string) => (body += d));
        req.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
          receiver.received.push({ headers, body, path: req.url ?? '' });
          res.writeHead(receiver.statusFor?.(req.url ?? '') ?? receiver.status, options.keepAlive ? {} : { connection: 'close' }).end('ok');
        });
      });
      server.on('connection', () => receiver.connections++);
      await new Promise<void>((resolve) => server!.listen(receiver.port, '127.0.0.1', () => resolve()));
      receiver.port = (server.address() as AddressInfo).port;
      receiver.url = `http://127.0.0.1:${receiver.port}/hook`;
    },
    close() {
      return receiver.down();
    },
  };
  await receiver.up();
  return receiver;
}
