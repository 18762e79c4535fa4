import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { connect, type DbHandle } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { base62Checksum, hashToken, TOKEN_PREFIX } from '../src/domain/token-format.js';
import { buildApp, type App } from '../src/app.js';
import { operations } from '../src/operations/index.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { seedForOutput } from './helpers/output-seed.js';

/**
 * Every read's JSON, byte for byte, against what tack answered before (the fixture was
 * written by main at 32b0b1f, before the reads were made faster): a faster read must not
 * change a single byte. A deliberate change of output regenerates the fixture:
 * `UPDATE_READ_OUTPUT=1 npx vitest run test/read-output.test.ts`, and the diff shows it.
 */

const FIXTURE = join(import.meta.dirname, 'fixtures', 'read-output.json');
const RANDOM = 'A'.repeat(32);
const TOKEN = `${TOKEN_PREFIX}${RANDOM}${base62Checksum(RANDOM)}`;
const NOW = new Date('2026-02-10T12:00:00.000Z');

let database: TestDatabase;
let handle: DbHandle;
let built: App;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await connect({ databaseUrl: database.url, dataDir: '' });
  await migrateToLatest(handle.db);
  await seedForOutput(database, hashToken(TOKEN));
  const config = loadConfig({ DATABASE_URL: database.url, PUBLIC_BASE_URL: 'https://tack.example.com/p' });
  built = await buildApp({ config, db: handle.db, log: pino({ level: 'silent' }), clock: () => NOW });
}, 60_000);
afterAll(async () => {
  await built?.app.close();
  await handle?.close();
  await database?.drop();
});

/** Each read with the filters, sizes and cursors that change its query or its presentation. */
const READS: [string, string][] = [
  ['getMe', '/v1/me'],
  ['listMembers', '/v1/members'],
  ['listMembers', '/v1/members?limit=1'],
  ['listTokens', '/v1/tokens'],
  ['listSnippets', '/v1/snippets'],
  ['listSnippets', '/v1/snippets?limit=7'],
  ['listSnippets', '/v1/snippets?type=sql'],
  ['listSnippets', '/v1/snippets?tag=alpha&limit=4'],
  ['listSnippets', '/v1/snippets?q=things&limit=3'],
  ['getSnippet', '/v1/snippets/snp_007'],
  ['getSnippet', '/v1/snippets/snp_010'],
  ['getSnippet', '/v1/snippets/snippet-5'],
  ['listSnippetVersions', '/v1/snippets/snp_005/versions'],
  ['listSnippetVersions', '/v1/snippets/snp_005/versions?limit=1'],
  ['getSnippetVersion', '/v1/snippets/snp_005/versions/1'],
  ['listBoards', '/v1/boards'],
  ['listBoards', '/v1/boards?limit=1'],
  ['getBoard', '/v1/boards/alpha'],
  ['listBoardMoves', '/v1/boards/alpha/moves'],
  ['listSessions', '/v1/sessions'],
  ['listCardMoves', '/v1/cards/crd_007/moves'],
  ['listCardLinks', '/v1/cards/crd_007/links'],
  ['getMilestone', '/v1/milestones/M1'],
  ['listCards', '/v1/cards'],
  ['listCards', '/v1/cards?limit=6'],
  ['listCards', '/v1/cards?board=alpha&status=done'],
  ['listCards', '/v1/cards?board=brd_b'],
  ['listCards', '/v1/cards?status=in_review&limit=100'],
  ['listCards', '/v1/cards?assignee=me&limit=5'],
  ['listCards', '/v1/cards?assignee=mem_c'],
  ['getCard', '/v1/cards/crd_007'],
  ['getCard', '/v1/cards/ALP-5'],
  ['listCriteria', '/v1/cards/crd_007/criteria'],
  ['listCriteria', '/v1/cards/crd_007/criteria?limit=2'],
  ['listComments', '/v1/cards/ALP-7/comments'],
  ['listComments', '/v1/cards/crd_007/comments?limit=2'],
  ['listTodos', '/v1/todos'],
  ['listTodos', '/v1/todos?limit=4'],
  ['listTodos', '/v1/todos?due=today'],
  ['listTodos', '/v1/todos?due=overdue'],
  ['listTodos', '/v1/todos?due=week&done=false'],
  ['listTodos', '/v1/todos?scope=personal'],
  ['listMilestones', '/v1/milestones'],
  ['listMilestones', '/v1/milestones?limit=1'],
  ['getMilestoneStatus', '/v1/milestones/M1/status'],
  ['getMilestoneStatus', '/v1/milestones/ship-2.0/status'],
  ['search', '/v1/search?q=a'],
  ['search', '/v1/search?q=alp-5'],
  ['search', '/v1/search?q=m1&types=milestone,board&limit=3'],
  ['listEvents', '/v1/events'],
  ['getCardActivity', '/v1/cards/ALP-5/activity'],
  ['listWebhooks', '/v1/webhooks'],
  ['listWebhooks', '/v1/webhooks?limit=1'],
  ['getWebhook', '/v1/webhooks/wh_a'],
  ['listWebhookDeliveries', '/v1/webhooks/wh_a/deliveries'],
  ['listWebhookDeliveries', '/v1/webhooks/wh_a/deliveries?limit=2'],
];

async function answers(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const get = async (url: string) => {
    const res = await built.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${TOKEN}` } });
    if (res.statusCode !== 200) throw new Error(`GET ${url}: ${res.statusCode} ${res.body}`);
    out[url] = res.body;
    return JSON.parse(res.body) as { next_cursor?: string };
  };
  for (const [, url] of READS) {
    let page = await get(url);
    // Follow a paginated read to its end: every page, every cursor.
    for (let n = 0; page.next_cursor && n < 10; n++) page = await get(`${url}${url.includes('?') ? '&' : '?'}cursor=${page.next_cursor}`);
  }
  return out;
}

describe('read output', () => {
  it('covers every read of the operation table', () => {
    expect(new Set(READS.map(([name]) => name))).toEqual(new Set(operations.filter((op) => op.readOnly).map((op) => op.name)));
  });

  it('is byte for byte what tack answered before', async () => {
    const now = await answers();
    if (process.env.UPDATE_READ_OUTPUT === '1' || !existsSync(FIXTURE)) {
      writeFileSync(FIXTURE, `${JSON.stringify(now, null, 1)}\n`);
      if (process.env.UPDATE_READ_OUTPUT !== '1') throw new Error(`${FIXTURE} was missing and has been written; check it in`);
    }
    const before = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Record<string, string>;
    expect(Object.keys(now).sort()).toEqual(Object.keys(before).sort());
    for (const url of Object.keys(before)) expect(now[url], url).toBe(before[url]);
  });
});
