import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { TestDatabase } from './helpers/database.js';
import { databaseMigratedTo } from './helpers/migrated-database.js';

/**
 * Migration 0017 on a database whose reminders already went out: each Slack user's DM channel
 * is taken from their member's latest sent reminder, but only where the member's link cannot
 * have changed since (their row not updated after that reminder); nobody gets another's DM.
 */

let database: TestDatabase;
let handle: DbHandle;

beforeAll(async () => {
  ({ database, handle } = await databaseMigratedTo('0015-snippet-type'));
});
afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

describe('0017-slack-links', () => {
  it('keeps the DM channels the reminders already used, where they surely belong to the Slack user', async () => {
    const q = (text: string) => database.query(text);
    await q(`insert into organizations (id, slug, name) values ('org_m', 'm', 'M')`);
    await q(`insert into members (id, org_id, name, role, slack_user_id, updated_at) values
      ('mem_a', 'org_m', 'A', 'member', 'U0A', '2026-01-01T00:00:00Z'),
      ('mem_b', 'org_m', 'B', 'member', 'U0B', '2026-01-05T00:00:00Z'),
      ('mem_c', 'org_m', 'C', 'member', null, '2026-01-01T00:00:00Z')`);
    // A: two days of reminders, the latest wins. B: relinked (updated) after its reminder. C: no link now.
    await q(`insert into slack_posts (kind, subject_id, period, org_id, state, channel_id, message_ts, sent_at) values
      ('todo_digest', 'mem_a', '2026-01-02', 'org_m', 'sent', 'D0OLD', '1.1', '2026-01-02T09:00:00Z'),
      ('todo_digest', 'mem_a', '2026-01-03', 'org_m', 'sent', 'D0A', '1.2', '2026-01-03T09:00:00Z'),
      ('todo_digest', 'mem_b', '2026-01-02', 'org_m', 'sent', 'D0B', '1.3', '2026-01-02T09:00:00Z'),
      ('todo_digest', 'mem_c', '2026-01-02', 'org_m', 'sent', 'D0C', '1.4', '2026-01-02T09:00:00Z'),
      ('todo_digest', 'mem_a', '2026-01-04', 'org_m', 'retry', null, null, null)`);
    expect(await migrateToLatest(handle.db)).toContain('0017-slack-links');
    const rows = await q(`select slack_user_id, channel_id from slack_dm_channels order by slack_user_id`);
    expect(rows.map((r) => [r.slack_user_id, r.channel_id])).toEqual([['U0A', 'D0A']]);
  });
});
