import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJobs } from '../src/queue/index.js';
import { dmChannelOf, startFakeSlack, type FakeSlack } from './helpers/fake-slack.js';
import { addMember, addTodo, jobDeps, slackEnv, todosListedIn, type TestMember } from './helpers/jobs.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { sleep, waitFor } from './helpers/wait.js';

/**
 * Stopping the jobs mid-sweep (SIGTERM): the sweep sends what it has claimed and claims no
 * more, so a long sweep does not outlast the shutdown's grace period; what it left stays due
 * and goes out once, on the next sweep.
 */

const MEMBERS = 12;
let fake: FakeSlack;
let t: TestServer;
const members: (TestMember & { user: string })[] = [];
const now = new Date('2026-05-04T09:30:00Z');

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer(slackEnv(fake), { clock: () => now, jobs: false });
  for (let i = 0; i < MEMBERS; i++) {
    const member = { ...(await addMember(t, { name: `Stop ${i}`, slack_user_id: `U0STOP${i}`, tz: 'UTC' })), user: `U0STOP${i}` };
    members.push(member);
    await addTodo(t, member, { title: `Due ${i}`, due_on: '2026-05-04' });
  }
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

const remindedMembers = () => members.filter((m) => fake.messages(dmChannelOf(m.user)).some((msg) => todosListedIn(msg.blocks).length > 0));

describe('closing the jobs during a sweep', () => {
  it('lets the posts it claimed finish, claims no more, and leaves the rest due for the next sweep', async () => {
    // Slack takes a while with each post: the sweep is still going when the jobs are closed.
    fake.handle('chat.postMessage', async (call) => {
      await sleep(300);
      return fake.answerAsSlack(call);
    });
    const jobs = await startJobs(jobDeps(t, () => now), { redisUrl: undefined, everyMs: 3_600_000 });
    await waitFor('the first post of the sweep', () => fake.callsTo('chat.postMessage').length > 0, { timeoutMs: 10_000, intervalMs: 5 });
    const started = Date.now();
    await jobs.close();
    // Only the posts already under way: not the dozen at 300 ms, a few at a time.
    expect(Date.now() - started).toBeLessThan(2_000);
    const first = remindedMembers().length;
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThan(MEMBERS);
    // Nothing claimed is left half done: every reminder row is sent, or was never claimed.
    const rows = await t.server.db.db.selectFrom('slack_posts').select(['state', 'subject_id']).where('kind', '=', 'todo_digest').execute();
    expect(rows.every((r) => r.state === 'sent')).toBe(true);
    expect(rows).toHaveLength(first);

    // The next sweep (another process, after the restart) sends the rest, each once.
    fake.handle('chat.postMessage', (call) => fake.answerAsSlack(call));
    const again = await startJobs(jobDeps(t, () => now), { redisUrl: undefined, everyMs: 3_600_000 });
    await waitFor('every member reminded', () => remindedMembers().length === MEMBERS, { timeoutMs: 10_000, intervalMs: 10 });
    await again.close();
    for (const m of members) expect(fake.messages(dmChannelOf(m.user)).filter((msg) => todosListedIn(msg.blocks).length > 0), m.user).toHaveLength(1);
  });
});
