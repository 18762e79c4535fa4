import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '../src/domain/token-format.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { lockTable, waitForBackendGone, waitForBlockedQuery } from './helpers/locks.js';
import { apiClient } from './helpers/server.js';
import { spawnTack, type ServingTack } from './helpers/spawn.js';

let db: TestDatabase;
let server: ServingTack | undefined;
const token = generateToken();
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await server?.kill('SIGKILL');
  await db?.drop();
});

const env = () => ({ DATABASE_URL: db.url, TACK_BOOTSTRAP_TOKEN: token });
const count = async (sql: string, params: unknown[]) => (await db.query(sql, params))[0].n as number;

describe('a server killed in the middle of a write', () => {
  it('leaves neither the write nor its idempotency key, and the retry creates exactly one token', { timeout: 150_000 }, async () => {
    server = await spawnTack(env());
    const api = apiClient(server.url, token);
    expect((await api('GET', '/v1/me')).status).toBe(200);

    const name = 'written-during-crash';
    const key = 'crash-key-1';
    const lock = await lockTable(db.url, 'tokens');
    let backend: number;
    try {
      const inFlight = api('POST', '/v1/tokens', { body: { name, scopes: ['read'] }, headers: { 'idempotency-key': key } });
      inFlight.catch(() => {}); // its connection dies with the server
      backend = await waitForBlockedQuery(db.query, db.name, 'insert into "tokens"%');
      // The write and the key claim are in one open transaction right now.
      const exit = await server.kill('SIGKILL');
      expect(exit.signal).toBe('SIGKILL');
      await expect(inFlight).rejects.toThrow();
    } finally {
      await lock.release();
    }
    await waitForBackendGone(db.query, backend);
    expect(await count('select count(*)::int as n from tokens where name = $1', [name])).toBe(0);
    expect(await count('select count(*)::int as n from idempotency_keys where key = $1', [key])).toBe(0);

    server = await spawnTack(env());
    const api2 = apiClient(server.url, token);
    const retry = await api2('POST', '/v1/tokens', { body: { name, scopes: ['read'] }, headers: { 'idempotency-key': key } });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    const again = await api2('POST', '/v1/tokens', { body: { name, scopes: ['read'] }, headers: { 'idempotency-key': key } });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(retry.text);
    expect(await count('select count(*)::int as n from tokens where name = $1', [name])).toBe(1);
    expect(await count('select count(*)::int as n from idempotency_keys where key = $1', [key])).toBe(1);
    expect((await server.kill('SIGTERM')).code).toBe(0);
    server = undefined;
  });
});
