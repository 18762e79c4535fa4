import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The streams' baseline, in a process of its own: a bare Node HTTP server that holds every
 * `GET /stream` open as Server-Sent Events and, on `POST /emit`, answers 200 and then writes
 * one frame (the posted body as its data) to every open stream. No database, auth, filter or
 * presentation: the floor of a fan-out to the same clients on the same machine.
 */
const streams = new Set<http.ServerResponse>();
let seq = 0;
const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stream') {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' });
    res.write(': connected\n\n');
    streams.add(res);
    req.on('close', () => streams.delete(res));
    return;
  }
  if (req.method === 'POST' && req.url === '/emit') {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      const id = `evt_${++seq}`;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id }));
      setImmediate(() => {
        const frame = `id: ${id}\nevent: todo.created\ndata: ${body}\n\n`;
        for (const s of streams) s.write(frame);
      });
    });
    return;
  }
  res.writeHead(404).end();
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => {
  for (const s of streams) s.end();
  server.close(() => process.exit(0));
});
