import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '../src/domain/token-format.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { apiClient, type Api, type ApiResponse } from './helpers/server.js';
import { spawnTack, type ServingTack } from './helpers/spawn.js';
import { waitFor } from './helpers/wait.js';

/**
 * `kill -9` of `tack serve` in the middle of a load of keyed writes of five kinds, as an
 * outside reviewer does it. Then a new process, and every request whose answer never came is
 * sent again with its key (what a careful client does). Every acknowledged write is there
 * exactly once, no retried write is applied twice, and a retry of an acknowledged one replays
 * the stored answer.
 */

let db: TestDatabase;
let server: ServingTack | undefined;
const token = generateToken();
beforeAll(async () => {
  db = await createTestDatabase();
}, 60_000);
afterAll(async () => {
  await server?.kill('SIGKILL');
  await db?.drop();
});

interface Write {
  key: string;
  method: string;
  path: string;
  body: Record<string, unknown>;
  answer?: ApiResponse;
}

const STATUSES = ['backlog', 'in_progress', 'in_review', 'done'] as const;

function writes(snippetId: string, cardRef: string, round: number): Write[] {
  const k = (kind: string) => `crash-${kind}-${round}`;
  return [
    { key: k('todo'), method: 'POST', path: '/v1/todos', body: { title: `todo ${round}` } },
    { key: k('snippet'), method: 'POST', path: '/v1/snippets', body: { type: 'txt', name: `snippet ${round}`, body: `body ${round}` } },
    // Each update carries a body no other carries, so a double apply shows as an extra version.
    { key: k('update'), method: 'PATCH', path: `/v1/snippets/${snippetId}`, body: { body: `version from round ${round}` } },
    { key: k('move'), method: 'PATCH', path: `/v1/cards/${cardRef}`, body: { workflow_status: STATUSES[round % 4] } },
    { key: k('card'), method: 'POST', path: '/v1/cards', body: { board: 'crash', title: `card ${round}` } },
  ];
}

async function send(api: Api, w: Write): Promise<ApiResponse | undefined> {
  try {
    return await api(w.method, w.path, { body: w.body, headers: { 'idempotency-key': w.key } });
  } catch {
    return undefined; // the connection died with the server: the outcome is unknown
  }
}

const count = async (sql: string, params: unknown[]) => (await db.query(sql, params))[0].n as number;

describe('kill -9 under a load of keyed writes', () => {
  it('keeps every acknowledged write once, applies no retried write twice, and replays stored answers', { timeout: 240_000 }, async () => {
    const env = { DATABASE_URL: db.url, TACK_BOOTSTRAP_TOKEN: token };
    server = await spawnTack(env);
    let api = apiClient(server.url, token);
    expect((await api('POST', '/v1/boards', { body: { name: 'Crash', slug: 'crash', ref_prefix: 'CRS' } })).status).toBe(201);
    const snippet = await api('POST', '/v1/snippets', { body: { type: 'txt', name: 'updated under load', body: 'v1' } });
    const card = await api('POST', '/v1/cards', { body: { board: 'crash', title: 'moved under load' } });
    expect([snippet.status, card.status]).toEqual([201, 201]);

    const all: Write[] = [];
    for (let round = 0; round < 40; round++) all.push(...writes(snippet.body.id, card.body.ref, round));
    // Six clients at once; the process dies once a fair share has been answered.
    let next = 0;
    let killed = false;
    const client = async () => {
      while (next < all.length && !killed) {
        const w = all[next++]!;
        w.answer = await send(api, w);
      }
    };
    const load = Promise.all(Array.from({ length: 6 }, client));
    await waitFor('a third of the writes answered', () => all.filter((w) => w.answer).length >= all.length / 3, { timeoutMs: 120_000, intervalMs: 5 });
    expect((await server.kill('SIGKILL')).signal).toBe('SIGKILL');
    killed = true;
    await load;
    const acknowledged = all.filter((w) => w.answer);
    const unknown = all.filter((w) => !w.answer);
    for (const w of acknowledged) expect([200, 201], `${w.key}: ${w.answer!.text}`).toContain(w.answer!.status);
    expect(unknown.length).toBeGreaterThan(0);

    server = await spawnTack(env);
    api = apiClient(server.url, token);
    // Every unanswered request again with its key (sent or not, committed or not: nobody knows).
    for (const w of unknown) {
      w.answer = await send(api, w);
      expect(w.answer?.status, `${w.key}: ${w.answer?.text}`).toBeOneOf([200, 201]);
    }
    // Every acknowledged request again: the stored answer, byte for byte.
    for (const w of acknowledged) {
      const again = await send(api, w);
      expect(again?.headers.get('idempotent-replayed'), w.key).toBe('true');
      expect(again?.status).toBe(w.answer!.status);
      expect(again?.text).toBe(w.answer!.text);
    }

    const sent = all.filter((w) => w.answer);
    const rounds = new Set(sent.map((w) => w.key.replace(/^crash-\w+-/, '')));
    for (const r of rounds) {
      expect(await count('select count(*)::int as n from todos where title = $1', [`todo ${r}`]), `todo ${r}`).toBe(1);
      expect(await count('select count(*)::int as n from snippets where name = $1', [`snippet ${r}`]), `snippet ${r}`).toBe(1);
      expect(await count('select count(*)::int as n from cards where title = $1', [`card ${r}`]), `card ${r}`).toBe(1);
      expect(await count('select count(*)::int as n from snippet_versions where body = $1', [`version from round ${r}`]), `update ${r}`).toBe(1);
    }
    expect((await server.kill('SIGTERM')).code).toBe(0);
    server = undefined;
  });
});
