import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSlackApi {
  /** Base URL for the Web API client (`…/api/`). */
  apiUrl: string;
  /** chat.postMessage calls answered. */
  posts(): number;
  close(): Promise<void>;
}

/**
 * The smallest Slack Web API that a reminder sweep needs, answering at once:
 * conversations.open gives each user a DM id, chat.postMessage a fresh ts. Nothing is kept
 * but a count, so the bench measures tack, not the fake.
 */
export async function startFakeSlackApi(): Promise<FakeSlackApi> {
  let posts = 0;
  let seq = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const method = (req.url ?? '').replace(/^\/api\//, '').split('?')[0];
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      let body: unknown = { ok: true };
      if (method === 'conversations.open') body = { ok: true, channel: { id: `D${form.get('users') ?? ''}` } };
      if (method === 'chat.postMessage') {
        posts++;
        body = { ok: true, channel: form.get('channel'), ts: `1700000000.${String(++seq).padStart(6, '0')}` };
      }
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    posts: () => posts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
