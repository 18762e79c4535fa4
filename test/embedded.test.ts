import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiClient } from './helpers/server.js';
import { runTack, spawnTack, type ServingTack } from './helpers/spawn.js';

/** The embedded default: no DATABASE_URL, PGlite in DATA_DIR. */

const dataDir = mkdtempSync(join(tmpdir(), 'tack-embedded-'));
const running: ServingTack[] = [];
afterAll(async () => {
  for (const s of running) await s.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function serve(): Promise<ServingTack> {
  const s = await spawnTack({ DATA_DIR: dataDir });
  running.push(s);
  return s;
}

describe('tack serve on the embedded database', () => {
  it('bootstraps, serves reads and writes, keeps its data across a restart and a crash, and refuses a second process', { timeout: 240_000 }, async () => {
    const first = await serve();
    const printed = first.stdout.filter((l) => /tack_live_/.test(l));
    expect(printed).toHaveLength(1);
    const owner = printed[0]!;
    expect(owner).toMatch(/^tack_live_[A-Za-z0-9]{32,}$/);
    const api = apiClient(first.url, owner);
    const me = await api('GET', '/v1/me');
    expect(me.status).toBe(200);
    expect(me.body.org.slug).toBe('default');

    // A write runs in a transaction on PGlite's single connection, with its idempotency record.
    const created = await api('POST', '/v1/tokens', { body: { name: 'embedded', scopes: ['read'] }, headers: { 'idempotency-key': 'embedded-1' } });
    expect(created.status).toBe(201);
    const replay = await api('POST', '/v1/tokens', { body: { name: 'embedded', scopes: ['read'] }, headers: { 'idempotency-key': 'embedded-1' } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(created.text);
    const member = await api('POST', '/v1/members', { body: { name: 'Embedded Member', email: 'em@example.com' } });
    expect(member.status).toBe(201);
    expect((await api('GET', '/readyz', { token: null })).status).toBe(200);

    // A second process on the same DATA_DIR is refused with a clear error, and the first keeps working.
    const second = await runTack(['serve'], { DATA_DIR: dataDir });
    expect(second.code).not.toBe(0);
    const lines = second.stderr.filter((l) => l.trim() !== '');
    expect(lines, second.stderr.join('\n')).toHaveLength(1);
    expect(lines[0]).toContain('DATA_DIR');
    expect(second.stdout.join('\n')).not.toMatch(/tack_live_|listening/);
    expect((await api('GET', '/v1/me')).status).toBe(200);
    expect((await api('POST', '/v1/tokens', { body: { name: 'after the refusal' } })).status).toBe(201);

    expect(await first.kill('SIGTERM')).toEqual({ code: 0, signal: null });

    const again = await serve();
    expect([...again.stdout, ...again.stderr].join('\n')).not.toContain('tack_live_');
    const api2 = apiClient(again.url, owner);
    expect((await api2('GET', '/v1/me')).status).toBe(200);
    expect((await api2('GET', '/v1/me', { token: created.body.token })).status).toBe(200);
    const names = (await api2('GET', '/v1/tokens?limit=100')).body.data.map((t: { name: string }) => t.name);
    expect(names).toEqual(expect.arrayContaining(['embedded', 'after the refusal']));
    const members = (await api2('GET', '/v1/members')).body.data.map((m: { email: string | null }) => m.email);
    expect(members).toContain('em@example.com');
    // The idempotency record survived too.
    const replayAfterRestart = await api2('POST', '/v1/tokens', { body: { name: 'embedded', scopes: ['read'] }, headers: { 'idempotency-key': 'embedded-1' } });
    expect(replayAfterRestart.text).toBe(created.text);

    // A crash: the lock file of the dead process is taken over and a committed write is still there.
    expect((await api2('POST', '/v1/tokens', { body: { name: 'before the crash' } })).status).toBe(201);
    expect((await again.kill('SIGKILL')).signal).toBe('SIGKILL');
    const afterCrash = await serve();
    const api3 = apiClient(afterCrash.url, owner);
    const after = (await api3('GET', '/v1/tokens?limit=100')).body.data.map((t: { name: string }) => t.name);
    expect(after).toContain('before the crash');
    expect((await api3('POST', '/v1/tokens', { body: { name: 'after the crash' } })).status).toBe(201);
    expect(await afterCrash.kill('SIGTERM')).toEqual({ code: 0, signal: null });
  });
});

describe('a lock left by a crashed process', () => {
  it('does not block the start when its pid is dead, or now runs another program', { timeout: 180_000 }, async () => {
    const dead = spawn('true');
    await once(dead, 'exit');
    // `sleep` has the pid now: alive, but not a tack (after a crash, pids come round again).
    const other = spawn('sleep', ['120'], { stdio: 'ignore' });
    const dir = mkdtempSync(join(tmpdir(), 'tack-stale-lock-'));
    try {
      for (const pid of [dead.pid!, other.pid!]) {
        writeFileSync(join(dir, 'tack.lock'), String(pid));
        const s = await spawnTack({ DATA_DIR: dir });
        running.push(s);
        expect(readFileSync(join(dir, 'tack.lock'), 'utf8')).toBe(String(s.pid));
        expect(await s.kill('SIGTERM')).toEqual({ code: 0, signal: null });
      }
    } finally {
      other.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
