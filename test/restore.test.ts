import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendTodoReminders } from '../jobs/todo-reminders.js';
import { connect, type DbHandle } from '../src/db/connect.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { startFakeSlack, type FakeSlack } from './helpers/fake-slack.js';
import { addMember, addTodo, jobDeps, remindersIn, slackEnv, type TestMember } from './helpers/jobs.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { runTack } from './helpers/spawn.js';
import { browser, codeOf, postSignin, signIn, signinLink } from './helpers/web.js';

/**
 * A backup taken before a sweep and restored after it (issue 27 item 18), with pg_dump and
 * pg_restore for real. Restored, the database does not know the day's reminders went out:
 * without `tack restore-check` the next sweep sent all 10 again. After it, the sweep reads
 * each DM back to the backup, finds the message and records it: nothing is posted twice.
 * What the database cannot know (a token revoked after the backup) is listed for a person.
 */

const exec = promisify(execFile);
const DUMP = join(tmpdir(), `tack-restore-test-${process.pid}.dump`);
let fake: FakeSlack;
let t: TestServer;
let restored: TestDatabase | undefined;
let restoredDb: DbHandle | undefined;
let b: TestServer | undefined;

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer(slackEnv(fake));
});
afterAll(async () => {
  await b?.close();
  await restoredDb?.close();
  await restored?.drop();
  await t?.close();
  await fake?.close();
  rmSync(DUMP, { force: true });
});

/** Tomorrow (UTC) at `time`: the jobs' clock runs ahead of the data's, as nothing else here reads it. */
function tomorrowAt(time: string): Date {
  const day = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  return new Date(`${day}T${time}Z`);
}

describe('restoring a backup', () => {
  it('a sweep after `tack restore-check` posts nothing twice; live credentials are listed, sessions end on request', { timeout: 180_000 }, async () => {
    const posted = tomorrowAt('09:30:00');
    const day = posted.toISOString().slice(0, 10);
    const members: TestMember[] = [];
    for (let i = 0; i < 10; i++) {
      const m = await addMember(t, { name: `Member ${i}`, slack_user_id: `U0REST${i}`, tz: 'UTC' });
      await addTodo(t, m, { title: `Due for ${i}`, due_on: day });
      members.push(m);
    }
    const revokedLater = await t.api('POST', '/v1/tokens', { body: { name: 'revoked after the backup', scopes: ['read'] } });
    expect(revokedLater.status).toBe(201);
    const session = await signIn(t);
    const unusedLink = await signinLink(t);

    // The backup.
    await exec('pg_dump', ['--format=custom', `--file=${DUMP}`, `--dbname=${t.database!.url}`]);

    // After it: the day's sweep sends 10 reminders, a token is revoked, the link is used.
    expect(await sendTodoReminders(jobDeps(t, () => posted))).toEqual({ sent: 10, skipped: 0, failed: 0 });
    expect(remindersIn(fake.calls)).toHaveLength(10);
    expect((await t.api('DELETE', `/v1/tokens/${revokedLater.body.id}`)).status).toBe(204);
    expect((await postSignin(t, codeOf(unusedLink))).status).toBe(303);

    // The restore, into a new database.
    restored = await createTestDatabase();
    await exec('pg_restore', ['--no-owner', `--dbname=${restored.url}`, DUMP]);

    const check = await runTack(['restore-check'], { DATABASE_URL: restored.url });
    const out = check.stdout.join('\n');
    expect(check.code, `${out}\n${check.stderr.join('\n')}`).toBe(0);
    expect(out).toMatch(/cannot be known/);
    // The revoked token is live again in the restored data; it is named for a person to revoke.
    expect(out).toContain(revokedLater.body.id);
    expect(out).toContain('revoked after the backup');
    expect(out).toMatch(/live web sessions \(1\)/);
    // Mine and the first start's, both unused when the backup was taken.
    expect(out).toMatch(/sign-in links: 2 unused link\(s\) ended/);
    expect(out).not.toContain(t.token);

    // An hour later, against the restored database: every DM is read back to the backup first.
    restoredDb = await connect({ databaseUrl: restored.url, dataDir: '', poolSize: 2 });
    fake.clear();
    const later = new Date(posted.getTime() + 60 * 60_000);
    const result = await sendTodoReminders(jobDeps(t, () => later, { db: restoredDb.db }));
    expect(result).toEqual({ sent: 10, skipped: 0, failed: 0 });
    expect(remindersIn(fake.calls)).toHaveLength(0);
    expect(fake.callsTo('conversations.history')).toHaveLength(10);
    // The restored rows now record the messages Slack has.
    const rows = await restored.query(`select subject_id, state, message_ts from slack_posts where kind = 'todo_digest' order by subject_id`);
    expect(rows).toHaveLength(10);
    const original = await t.database!.query(`select subject_id, message_ts from slack_posts where kind = 'todo_digest' order by subject_id`);
    expect(rows.map((r) => [r.subject_id, r.state, r.message_ts])).toEqual(original.map((r) => [r.subject_id, 'sent', r.message_ts]));
    expect(await sendTodoReminders(jobDeps(t, () => new Date(later.getTime() + 60_000), { db: restoredDb.db }))).toEqual({ sent: 0, skipped: 0, failed: 0 });

    // A server on the restored database: the link used after the backup was ended; sessions end on request.
    b = await startTestServer({ ...slackEnv(fake), DATABASE_URL: restored.url, TACK_BOOTSTRAP_TOKEN: t.token });
    expect((await postSignin(b, codeOf(unusedLink))).status).toBe(400);
    const restoredSession = browser(b, session.cookie);
    expect((await restoredSession.request('GET', '/v1/me')).status).toBe(200);
    const end = await runTack(['restore-check', '--end-sessions'], { DATABASE_URL: restored.url });
    expect(end.code, end.stderr.join('\n')).toBe(0);
    expect(end.stdout.join('\n')).toMatch(/1 ended/);
    expect((await restoredSession.request('GET', '/v1/me')).status).toBe(401);
  });

  it('refuses a --since that is not a time', async () => {
    const r = await runTack(['restore-check', '--since', 'yesterday-ish'], { DATABASE_URL: t.database!.url });
    expect(r.code).toBe(1);
    expect(r.stderr.join('\n')).toMatch(/--since must be a date and time/);
  });
});
