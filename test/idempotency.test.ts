import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneIdempotencyKeys } from '../src/domain/idempotency.js';
import { expectEnvelope } from './helpers/envelope.js';
import { lockTable, waitForBlockedQuery } from './helpers/locks.js';
import { startTestServer, type ApiResponse, type TestServer } from './helpers/server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => t?.close());

const uniq = (label: string) => `${label}-${randomBytes(6).toString('hex')}`;
const tokensNamed = async (name: string) => (await t.database!.query('select count(*)::int as n from tokens where name = $1', [name]))[0].n as number;
const keyRows = async (key: string) => t.database!.query('select token_id, operation, status, created_at from idempotency_keys where key = $1', [key]);

function createToken(name: string, key: string, extra: Record<string, unknown> = {}, token?: string): Promise<ApiResponse> {
  return t.api('POST', '/v1/tokens', { body: { name, scopes: ['read'], ...extra }, headers: { 'idempotency-key': key }, token });
}

function expectReplayOf(res: ApiResponse, first: ApiResponse): void {
  expect(res.status).toBe(first.status);
  expect(res.headers.get('idempotent-replayed')).toBe('true');
  expect(res.text).toBe(first.text);
  expect(res.headers.get('content-type')).toBe(first.headers.get('content-type'));
}

describe('Idempotency-Key (contract §5)', () => {
  it('20 concurrent requests with one key create exactly one token; the others replay it or get 409 in_use', async () => {
    const name = uniq('concurrent');
    const key = uniq('key');
    const responses = await Promise.all(Array.from({ length: 20 }, () => createToken(name, key)));
    expect(await tokensNamed(name)).toBe(1);
    expect(await keyRows(key)).toHaveLength(1);
    const firsts = responses.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
    expect(firsts).toHaveLength(1);
    const first = firsts[0]!;
    for (const r of responses) {
      if (r === first) continue;
      if (r.status === 409) expectEnvelope(r, 409, 'idempotency_key_in_use');
      else expectReplayOf(r, first);
    }
    // Later, a replay is the first response byte for byte (the secret included: the client lost it otherwise).
    const later = await createToken(name, key);
    expectReplayOf(later, first);
    expect(later.body.token).toBe(first.body.token);
    expect(await tokensNamed(name)).toBe(1);
  });

  it('answers 409 idempotency_key_in_use, at once, while the first request still runs', async () => {
    const name = uniq('in-flight');
    const key = uniq('key');
    const lock = await lockTable(t.database!.url, 'tokens');
    let first: Promise<ApiResponse>;
    try {
      first = createToken(name, key);
      await waitForBlockedQuery(t.database!.query, t.database!.name, 'insert into "tokens"%');
      const second = await createToken(name, key);
      expectEnvelope(second, 409, 'idempotency_key_in_use');
    } finally {
      await lock.release();
    }
    const done = await first;
    expect(done.status).toBe(201);
    expect(done.headers.get('idempotent-replayed')).toBeNull();
    expectReplayOf(await createToken(name, key), done);
    expect(await tokensNamed(name)).toBe(1);
  });

  it('replays for the same body in another key order, and refuses another body with 409 idempotency_key_reused', async () => {
    const name = uniq('reuse');
    const key = uniq('key');
    const first = await t.api('POST', '/v1/tokens', { raw: JSON.stringify({ name, scopes: ['read'] }), headers: { 'content-type': 'application/json', 'idempotency-key': key } });
    expect(first.status).toBe(201);
    const reordered = await t.api('POST', '/v1/tokens', { raw: JSON.stringify({ scopes: ['read'], name }), headers: { 'content-type': 'application/json', 'idempotency-key': key } });
    expectReplayOf(reordered, first);
    const other = await createToken(name, key, { scopes: ['read', 'write'] });
    expectEnvelope(other, 409, 'idempotency_key_reused');
    const otherName = await createToken(`${name}-x`, key);
    expectEnvelope(otherName, 409, 'idempotency_key_reused');
    expect(await tokensNamed(name)).toBe(1);
    expect(await tokensNamed(`${name}-x`)).toBe(0);
  });

  it('stores nothing for a request that failed validation or the domain, so the key stays free', async () => {
    const name = uniq('after-failure');
    const key = uniq('key');
    expectEnvelope(await createToken('', key), 422, 'validation_failed');
    expect(await keyRows(key)).toHaveLength(0);
    const past = await createToken(name, key, { expires_at: '2001-01-01T00:00:00Z' });
    expectEnvelope(past, 422);
    expect(await keyRows(key)).toHaveLength(0);
    expectEnvelope(await createToken(name, key, { member_id: 'mem_doesnotexist' }), 404, 'member_not_found');
    expect(await keyRows(key)).toHaveLength(0);
    expect(await tokensNamed(name)).toBe(0);

    const ok = await createToken(name, key);
    expect(ok.status).toBe(201);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
    expect(await tokensNamed(name)).toBe(1);
    expect(await keyRows(key)).toHaveLength(1);
  });

  it('scopes keys per token and per operation', async () => {
    const key = uniq('shared-key');
    const other = await t.api('POST', '/v1/tokens', { body: { name: uniq('other-caller'), scopes: ['read', 'write', 'config:write'] } });
    expect(other.status).toBe(201);
    const name = uniq('scoped');
    const mine = await createToken(name, key);
    expect(mine.status).toBe(201);
    const theirs = await createToken(name, key, {}, other.body.token);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(await tokensNamed(name)).toBe(2);

    const member = await t.api('POST', '/v1/members', { body: { name: 'Keyed Member' }, headers: { 'idempotency-key': key } });
    expect(member.status).toBe(201);
    expect(member.headers.get('idempotent-replayed')).toBeNull();
    expect(member.body.id).toMatch(/^mem_/);
    const rows = await keyRows(key);
    expect(rows.map((r) => r.operation).sort()).toEqual(['createMember', 'createToken', 'createToken']);
  });

  it('replays a 204 too', async () => {
    const victim = await t.api('POST', '/v1/tokens', { body: { name: uniq('victim') } });
    const key = uniq('key');
    const first = await t.api('DELETE', `/v1/tokens/${victim.body.id}`, { headers: { 'idempotency-key': key } });
    expect(first.status).toBe(204);
    const again = await t.api('DELETE', `/v1/tokens/${victim.body.id}`, { headers: { 'idempotency-key': key } });
    expect(again.status).toBe(204);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe('');
  });

  it('keeps keys 24 hours: an older record is not replayed, and pruneIdempotencyKeys removes it', async () => {
    const name = uniq('expiry');
    const key = uniq('key');
    const first = await createToken(name, key);
    expect(first.status).toBe(201);

    await t.database!.query(`update idempotency_keys set created_at = now() - interval '23 hours' where key = $1`, [key]);
    expectReplayOf(await createToken(name, key), first);

    await t.database!.query(`update idempotency_keys set created_at = now() - interval '24 hours 1 minute' where key = $1`, [key]);
    const fresh = await createToken(name, key);
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    expect(fresh.body.id).not.toBe(first.body.id);
    expect(await tokensNamed(name)).toBe(2);
    // The new response took the key over.
    expectReplayOf(await createToken(name, key), fresh);

    const keep = uniq('key');
    expect((await createToken(uniq('kept'), keep)).status).toBe(201);
    await t.database!.query(`update idempotency_keys set created_at = now() - interval '25 hours' where key = $1`, [key]);
    const removed = await pruneIdempotencyKeys(t.server.db.db);
    expect(removed).toBeGreaterThanOrEqual(1);
    expect(await keyRows(key)).toHaveLength(0);
    expect(await keyRows(keep)).toHaveLength(1);
  });
});
