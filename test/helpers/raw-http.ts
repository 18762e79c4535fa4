import { connect, type Socket } from 'node:net';

/** One HTTP/1.1 connection driven by hand, to pipeline requests (fetch cannot). */
export interface RawConnection {
  socket: Socket;
  send(method: string, path: string, headers?: Record<string, string>, body?: string): void;
  /** Everything received so far. */
  received(): string;
  closed: Promise<void>;
}

export function openRaw(url: string): Promise<RawConnection> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname, () => {
      let data = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (data += d));
      const closed = new Promise<void>((res) => socket.once('close', () => res()));
      resolve({
        socket,
        send(method, path, headers = {}, body) {
          const lines = [`${method} ${path} HTTP/1.1`, `Host: ${u.host}`];
          for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
          if (body !== undefined) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
          socket.write(`${lines.join('\r\n')}\r\n\r\n${body ?? ''}`);
        },
        received: () => data,
        closed,
      });
    });
    socket.once('error', reject);
  });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Splits a stream of HTTP/1.1 responses with Content-Length bodies. */
export function parseResponses(data: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = data;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine, ...headerLines] = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const l of headerLines) {
      const i = l.indexOf(':');
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const bodyBytes = Buffer.from(rest.slice(end + 4));
    out.push({ status: Number(statusLine!.split(' ')[1]), headers, body: bodyBytes.subarray(0, length).toString('utf8') });
    rest = bodyBytes.subarray(length).toString('utf8');
  }
  return out;
}
