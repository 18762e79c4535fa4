import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What reached one path of the receiver: webhook ids in order of arrival, and when. */
export interface PathLog {
  ids: string[];
  at: number[];
}

/**
 * The bench's webhook endpoint: answers 200 to every POST at once, and logs each request's
 * `webhook-id` by path (the body is read, not parsed). `down()` stops listening (connections
 * refused), `up()` listens again on the same port.
 */
export class BenchReceiver {
  readonly paths = new Map<string, PathLog>();
  port = 0;
  #server: http.Server | undefined;

  log(path: string): PathLog {
    let log = this.paths.get(path);
    if (!log) this.paths.set(path, (log = { ids: [], at: [] }));
    return log;
  }

  async up(): Promise<void> {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const log = this.log(req.url ?? '');
        log.ids.push(String(req.headers['webhook-id']));
        log.at.push(performance.now());
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    server.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  async down(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }
}
