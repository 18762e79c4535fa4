import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { REPO_ROOT, spawnTack } from './helpers/spawn.js';
import { waitFor } from './helpers/wait.js';

const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const db of databases) await db.drop();
});

async function database(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  databases.push(db);
  return db;
}

/** What the first start prints for the operator as plain text, in order: the owner's token and a sign-in link. */
const BOOTSTRAP = [
  /^tack: created organization "default" with an owner\. Owner token \(shown once, keep it safe\):$/,
  /^tack_live_\S+$/,
  /^tack: sign in to the web app as the owner: open http:\/\/127\.0\.0\.1:\d+\/signin\?code=\S+ /,
];

describe('tack serve logs', () => {
  it('writes JSON lines when stdout is not a terminal: the token and sign-in link of the first start are the only plain text, and one line says where it listens', { timeout: 120_000 }, async () => {
    const db = await database();
    const s = await spawnTack({ DATABASE_URL: db.url });
    expect((await s.kill('SIGTERM')).code).toBe(0);
    const lines = s.stdout.filter((l) => l.trim() !== '');
    const plain = lines.filter((l) => !l.startsWith('{'));
    expect(plain, s.output()).toHaveLength(BOOTSTRAP.length);
    plain.forEach((line, i) => expect(line).toMatch(BOOTSTRAP[i]!));
    const records = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(records.length).toBeGreaterThan(0);
    for (const r of records) expect(r).toMatchObject({ level: expect.any(Number), msg: expect.any(String) });
    expect(lines.filter((l) => /listening/i.test(l)), s.output()).toEqual([expect.stringContaining(`"msg":"listening on ${s.url}"`)]);
  });

  it('writes readable lines on a terminal, with the same single "listening on" line', { timeout: 120_000 }, async () => {
    const db = await database();
    // `script` runs the server on a pseudo-terminal, as a person's shell would.
    const command = `${process.execPath} --import tsx src/cli/main.ts serve`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', DATABASE_URL: db.url, TERM: 'dumb' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    try {
      await waitFor('the server to say where it listens', () => /listening on http:\/\/127\.0\.0\.1:\d+/.test(out) || undefined, { timeoutMs: 90_000 });
    } finally {
      // Closing the terminal hangs the server up.
      child.kill('SIGTERM');
      await exited;
    }
    // eslint-disable-next-line no-control-regex
    const lines = out.replace(/\x1b\[[0-9;]*m/g, '').split(/\r?\n/).filter((l) => l.trim() !== '');
    expect(lines.filter((l) => l.startsWith('{')), out).toEqual([]);
    expect(lines.filter((l) => /listening/i.test(l)), out).toEqual([expect.stringMatching(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: listening on http:\/\/127\.0\.0\.1:\d+$/)]);
    expect(lines.find((l) => l.includes('database migrated'))).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: database migrated/);
    expect(lines.filter((l) => BOOTSTRAP[0]!.test(l))).toHaveLength(1);
  });
});
