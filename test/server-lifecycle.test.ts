import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrations } from '../src/db/migrations/index.js';
import { generateToken } from '../src/domain/token-format.js';
import { connectTo, createTestDatabase, type TestDatabase } from './helpers/database.js';
import { expectEnvelope } from './helpers/envelope.js';
import { lockTable, waitForBlockedQuery } from './helpers/locks.js';
import { openRaw, parseResponses } from './helpers/raw-http.js';
import { apiClient, startTestServer } from './helpers/server.js';
import { DATABASE_URL } from './helpers/services.js';
import { runTack, spawnTack, type ServingTack } from './helpers/spawn.js';
import { waitFor } from './helpers/wait.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

async function database(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  cleanups.push(() => db.drop());
  return db;
}

async function serve(env: Record<string, string>): Promise<ServingTack> {
  const s = await spawnTack(env);
  cleanups.push(() => s.kill('SIGKILL'));
  return s;
}

const TOKEN_LINE = /^tack_live_[A-Za-z0-9]{32,}$/;

describe('graceful shutdown', () => {
  /**
   * A server with a POST /v1/tokens named `name` in flight (held by a lock on tokens) when
   * SIGTERM arrives, once its listener has closed; the caller releases the lock.
   */
  async function inFlightAtSigterm(name: string) {
    const db = await database();
    const token = generateToken();
    const s = await serve({ DATABASE_URL: db.url, TACK_BOOTSTRAP_TOKEN: token });
    // The first start's sign-in link refers to the owner token: made once start-up is done,
    // it would wait on the lock below too (and hold up the signal handling with it).
    await waitFor('the first sign-in link', () => s.output().includes('sign in to the web app as the owner'));
    const conn = await openRaw(s.url);
    const lock = await lockTable(db.url, 'tokens');
    try {
      // HTTP/1.1 keeps the connection alive unless a side says otherwise; this client never does.
      conn.send('POST', '/v1/tokens', { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, JSON.stringify({ name }));
      await waitForBlockedQuery(db.query, db.name, 'insert into "tokens"%');
      s.proc.kill('SIGTERM');
      // Draining: the listener is closed, so new connections are refused.
      await waitFor('the listener to close', async () => {
        try {
          await fetch(`${s.url}/healthz`);
          return false;
        } catch {
          return true;
        }
      });
    } catch (err) {
      await lock.release();
      throw err;
    }
    const count = async () => (await db.query(`select count(*)::int as n from tokens where name = '${name}'`))[0].n as number;
    return { s, conn, lock, count };
  }

  it('lets an in-flight request finish with its 2xx on SIGTERM, answers later ones 503 in the envelope, then exits 0', { timeout: 120_000 }, async () => {
    const { s, conn, lock, count } = await inFlightAtSigterm('in flight');
    try {
      // A request pipelined on the open connection arrives while draining. The process must
      // wait for the in-flight request: its 201 below is read from this same connection.
      conn.send('GET', '/healthz');
      expect(s.exit, 'the process waits for the in-flight request').toBeUndefined();
    } finally {
      await lock.release();
    }
    await conn.closed;
    const exit = await s.exited;
    expect(exit, s.output()).toEqual({ code: 0, signal: null });
    const [first, second] = parseResponses(conn.received());
    expect(first?.status, conn.received()).toBe(201);
    expect(JSON.parse(first!.body).name).toBe('in flight');
    expect(second?.status, conn.received()).toBe(503);
    const body = JSON.parse(second!.body);
    expect(body).toMatchObject({ code: 'shutting_down', http_status: 503, request_id: second!.headers['x-request-id'] });
    expect(second!.headers['retry-after']).toBe('1');
    expect(await count()).toBe(1);
  });

  it('closes a kept-alive connection after its in-flight answer, so the process exits 0 without waiting on the idle socket', { timeout: 120_000 }, async () => {
    const { s, conn, lock, count } = await inFlightAtSigterm('kept alive');
    await lock.release();
    // The server closes the connection once it is idle (the client leaves it open); without
    // that, the process waited on the idle socket until its force timer ended it with exit 1
    // after 25 s.
    await conn.closed;
    const [answer, more] = parseResponses(conn.received());
    expect(answer?.status, conn.received()).toBe(201);
    expect(more).toBeUndefined();
    expect(await s.exited, s.output()).toEqual({ code: 0, signal: null });
    expect(await count()).toBe(1);
  });
});

describe('start-up', () => {
  it('three `tack migrate` at once all succeed and migrate the schema once', { timeout: 120_000 }, async () => {
    const db = await database();
    const runs = await Promise.all([1, 2, 3].map(() => runTack(['migrate'], { DATABASE_URL: db.url })));
    for (const r of runs) expect(r.code, r.stderr.join('\n')).toBe(0);
    const applied = runs.filter((r) => r.stdout.some((l) => /^tack: applied /.test(l)));
    expect(applied).toHaveLength(1);
    const names = migrations.map((m) => m.name);
    expect(applied[0]!.stdout.find((l) => l.startsWith('tack: applied'))).toBe(`tack: applied ${names.join(', ')}`);
    for (const r of runs) if (r !== applied[0]) expect(r.stdout).toContain('tack: schema is up to date');
    const rows = await db.query('select name from kysely_migration order by name');
    expect(rows.map((r) => r.name)).toEqual(names);
  });

  it('three `tack serve` at once on a fresh database bootstrap one organization and print one token', { timeout: 120_000 }, async () => {
    const db = await database();
    const servers = await Promise.all([1, 2, 3].map(() => serve({ DATABASE_URL: db.url })));
    const printed = servers.flatMap((s) => s.stdout.filter((l) => /tack_live_/.test(l)));
    expect(printed).toHaveLength(1);
    expect(printed[0]).toMatch(TOKEN_LINE);
    expect((await db.query('select count(*)::int as n from organizations'))[0].n).toBe(1);
    expect((await db.query('select count(*)::int as n from members'))[0].n).toBe(1);
    expect((await db.query('select count(*)::int as n from tokens'))[0].n).toBe(1);
    expect((await db.query('select count(*)::int as n from kysely_migration'))[0].n).toBe(migrations.length);
    for (const s of servers) expect((await apiClient(s.url, printed[0]!)('GET', '/v1/me')).status).toBe(200);
    const exits = await Promise.all(servers.map((s) => s.kill('SIGTERM')));
    for (const e of exits) expect(e).toEqual({ code: 0, signal: null });
  });

  it('without TACK_BOOTSTRAP_TOKEN prints a working owner token once; a restart prints none', { timeout: 120_000 }, async () => {
    const db = await database();
    const first = await serve({ DATABASE_URL: db.url });
    const tokens = first.stdout.filter((l) => /tack_live_/.test(l));
    expect(tokens).toHaveLength(1);
    expect(tokens[0]).toMatch(TOKEN_LINE);
    expect(first.stderr.join('\n')).not.toContain('tack_live_');
    const me = await apiClient(first.url, tokens[0]!)('GET', '/v1/me');
    expect(me.status).toBe(200);
    expect(me.body.member.role).toBe('owner');
    expect(me.body.scopes).toEqual(['read', 'write', 'replay', 'config:write']);
    expect((await first.kill('SIGTERM')).code).toBe(0);

    const second = await serve({ DATABASE_URL: db.url });
    expect([...second.stdout, ...second.stderr].join('\n')).not.toContain('tack_live_');
    expect((await apiClient(second.url, tokens[0]!)('GET', '/v1/me')).status).toBe(200);
    expect((await second.kill('SIGTERM')).code).toBe(0);
  });

  const NOT_PEM = join(tmpdir(), `tack-not-pem-${process.pid}.pem`);
  const invalid: [string, Record<string, string>, string][] = [
    ['PORT=abc', { PORT: 'abc' }, 'PORT'],
    ['PORT=70000', { PORT: '70000' }, 'PORT'],
    ['DATABASE_URL=nonsense', { DATABASE_URL: 'nonsense' }, 'DATABASE_URL'],
    ['DATABASE_URL with a password, malformed', { DATABASE_URL: 'postgres//admin:hunter2@db' }, 'DATABASE_URL'],
    ['DATABASE_URL of a database that does not exist', { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/tack_no_such_database' }, 'DATABASE_URL'],
    ['DATABASE_URL nobody listens on', { DATABASE_URL: 'postgres://admin:hunter2@127.0.0.1:1/x' }, 'DATABASE_URL'],
    ['TACK_BOOTSTRAP_TOKEN malformed', { TACK_BOOTSTRAP_TOKEN: 'tack_live_hunter2' }, 'TACK_BOOTSTRAP_TOKEN'],
    ['TACK_BOOTSTRAP_TOKEN with a bad checksum', { TACK_BOOTSTRAP_TOKEN: `${generateToken().slice(0, -1)}0` }, 'TACK_BOOTSTRAP_TOKEN'],
    ['RATE_LIMIT_PER_MINUTE=0', { RATE_LIMIT_PER_MINUTE: '0' }, 'RATE_LIMIT_PER_MINUTE'],
    ['REDIS_URL=http://x', { REDIS_URL: 'http://x' }, 'REDIS_URL'],
    ['TLS_CERT_FILE alone', { TLS_CERT_FILE: '/nonexistent/cert.pem' }, 'TLS_KEY_FILE'],
    ['TLS files that do not exist', { TLS_CERT_FILE: '/nonexistent/cert.pem', TLS_KEY_FILE: '/nonexistent/key.pem' }, 'TLS_CERT_FILE'],
    ['LOG_LEVEL=loud', { LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    ['TLS files that are not PEM', { TLS_CERT_FILE: NOT_PEM, TLS_KEY_FILE: NOT_PEM }, 'TLS_CERT_FILE'],
  ];
  it('stops with one line on stderr naming the variable for invalid configuration', { timeout: 120_000 }, async () => {
    writeFileSync(NOT_PEM, 'not a certificate\n');
    cleanups.push(async () => rmSync(NOT_PEM, { force: true }));
    // A database that must stay untouched: start-up fails before migrating or bootstrapping it.
    const db = await database();
    // A few at a time: a dozen Node processes at once would only fight over two cores.
    const results: { label: string; variable: string; env: Record<string, string>; r: Awaited<ReturnType<typeof runTack>> }[] = [];
    const queue = [...invalid];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          const [label, env, variable] = next;
          results.push({ label, variable, env, r: await runTack(['serve'], { DATABASE_URL: db.url, ...env }) });
        }
      }),
    );
    expect(results).toHaveLength(invalid.length);
    for (const { label, variable, env, r } of results) {
      const lines = r.stderr.filter((l) => l.trim() !== '');
      expect(r.code, `${label}: exit code`).not.toBe(0);
      expect(r.code, `${label}: exit code`).not.toBeNull();
      expect(lines, `${label}: ${r.stderr.join('\n')}`).toHaveLength(1);
      expect(lines[0], label).toContain(variable);
      expect(lines[0], label).toMatch(/^tack: /);
      expect(lines[0], `${label} leaks a secret`).not.toContain('hunter2');
      if (env.TACK_BOOTSTRAP_TOKEN) expect(lines[0]).not.toContain(env.TACK_BOOTSTRAP_TOKEN);
      expect(r.stdout.join('\n'), label).not.toMatch(/tack_live_|listening/);
    }
    expect(await db.query(`select 1 from information_schema.tables where table_schema = 'public'`)).toHaveLength(0);
  });
});

describe('health', () => {
  it('/healthz answers 200; /readyz 200 with the database up and 503 while it refuses connections', { timeout: 60_000 }, async () => {
    const t = await startTestServer();
    cleanups.push(() => t.close());
    const health = await t.api('GET', '/healthz', { token: null });
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
    const ready = await t.api('GET', '/readyz', { token: null });
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { database: 'ok' } });

    const name = t.database!.name;
    const admin = await connectTo(DATABASE_URL);
    try {
      await admin.query(`alter database ${name} with allow_connections false`);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [name]);
      const down = await waitFor('/readyz 503', async () => {
        const r = await t.api('GET', '/readyz', { token: null });
        return r.status === 503 ? r : undefined;
      });
      expectEnvelope(down, 503, 'not_ready');
      expect(down.body.checks).toEqual({ database: 'down' });
      expect((await t.api('GET', '/healthz', { token: null })).status).toBe(200);
    } finally {
      await admin.query(`alter database ${name} with allow_connections true`);
      await admin.end();
    }
    await waitFor('/readyz 200 again', async () => (await t.api('GET', '/readyz', { token: null })).status === 200);
  });
});
