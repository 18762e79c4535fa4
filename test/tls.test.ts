import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '../src/domain/token-format.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { spawnTack, type ServingTack } from './helpers/spawn.js';

const dir = mkdtempSync(join(tmpdir(), 'tack-tls-'));
const cert = join(dir, 'cert.pem');
const key = join(dir, 'key.pem');
const token = generateToken();
let db: TestDatabase;
let server: ServingTack;

beforeAll(async () => {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1', '-keyout', key, '-out', cert], {
    stdio: 'ignore',
  });
  db = await createTestDatabase();
  server = await spawnTack({ DATABASE_URL: db.url, TACK_BOOTSTRAP_TOKEN: token, TLS_CERT_FILE: cert, TLS_KEY_FILE: key });
});
afterAll(async () => {
  await server?.kill('SIGKILL');
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

interface HttpsResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // Parsed JSON of whichever response, like ApiResponse's body.
  body: any;
  peerCN: unknown;
}

/** node:https, since fetch cannot be told to trust a self-signed certificate without undici's Agent. */
function request(method: string, url: string, headers: Record<string, string> = {}, body?: string): Promise<HttpsResponse> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method, headers, rejectUnauthorized: false }, (res) => {
      const peerCN = (res.socket as TLSSocket).getPeerCertificate().subject?.CN;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined, peerCN }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('HTTPS with TLS_CERT_FILE and TLS_KEY_FILE', () => {
  it('listens on https with the given certificate', async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const health = await request('GET', `${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(health.peerCN).toBe('localhost');
  });

  it('serves the API, errors included, over TLS', async () => {
    const me = await request('GET', `${server.url}/v1/me`, { authorization: `Bearer ${token}` });
    expect(me.status).toBe(200);
    expect(me.body.member.role).toBe('owner');
    const created = await request('POST', `${server.url}/v1/tokens`, { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, JSON.stringify({ name: 'over tls' }));
    expect(created.status).toBe(201);
    const denied = await request('GET', `${server.url}/v1/me`);
    expect(denied.status).toBe(401);
    expect(denied.body.request_id).toBe(denied.headers['x-request-id']);
  });

  it('does not answer plain HTTP on the same port', async () => {
    await expect(fetch(`${server.url.replace('https:', 'http:')}/healthz`)).rejects.toThrow();
  });
});
