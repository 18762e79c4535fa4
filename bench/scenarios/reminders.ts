import { WebClient } from '@slack/web-api';
import pino from 'pino';
import { sendTodoReminders } from '../../jobs/todo-reminders.js';
import { connect } from '../../src/db/connect.js';
import { localToday } from '../../src/domain/todo-due.js';
import { startFakeSlackApi } from '../fake-slack-api.js';
import type { Scenario } from '../scenario.js';
import { owner } from './seed.js';

const MEMBERS = 1_000;
const TODOS_PER_MEMBER = 100;
const DUE_PER_MEMBER = 10;
const ZONES = ['UTC', 'Asia/Kolkata', 'Europe/Berlin', 'America/New_York'];

/**
 * A due-todo reminder sweep over 100,000 open todos of 1,000 Slack-linked members in four
 * time zones, 10,000 of them due today (REMINDER_HOUR 0, so today's are all due whatever the
 * hour): the time to claim, post and record all 10,000 against a fake Slack API that answers
 * at once, then the time of the next sweep, which finds nothing left to send.
 */
export const reminders: Scenario = {
  name: 'reminders',
  async setup(ctx) {
    const { orgId } = await owner(ctx.pool);
    const now = new Date();
    process.stdout.write(`seeding ${MEMBERS} members and ${MEMBERS * TODOS_PER_MEMBER} open todos (${MEMBERS * DUE_PER_MEMBER} due today) …\n`);
    await ctx.pool.query(
      `insert into members (id, org_id, name, role, slack_user_id, tz)
       select 'mem_rem' || g, $1, 'Member ' || g, 'member', 'U' || lpad(g::text, 8, '0'), ($2::text[])[1 + g % ${ZONES.length}]
       from generate_series(1, ${MEMBERS}) g`,
      [orgId, ZONES],
    );
    const today = ZONES.map((tz) => localToday(now, tz));
    await ctx.pool.query(
      `insert into todos (id, member_id, org_id, title, priority, due_on)
       select 'todo_rem' || g || '_' || k, 'mem_rem' || g, $1, 'Todo ' || k || ' of member ' || g,
              (array['urgent','high','medium','low'])[1 + k % 4],
              case when k <= ${DUE_PER_MEMBER} then ($2::date[])[1 + g % ${ZONES.length}]
                   else ($2::date[])[1 + g % ${ZONES.length}] + 1 + k % 30 end
       from generate_series(1, ${MEMBERS}) g, generate_series(1, ${TODOS_PER_MEMBER}) k`,
      [orgId, today],
    );
    await ctx.pool.query('analyze');
    return [];
  },
  async extra(ctx) {
    const slack = await startFakeSlackApi();
    const db = await connect({ databaseUrl: ctx.databaseUrl, dataDir: '', poolSize: 10 });
    const log = pino({ level: 'silent' });
    try {
      const deps = {
        db: db.db,
        slack: new WebClient('xoxb-bench', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } }),
        clock: () => new Date(),
        config: { reminderHour: 0, slack: { org: 'default' } },
        log,
      };
      const started = performance.now();
      const first = await sendTodoReminders(deps);
      const seconds = (performance.now() - started) / 1000;
      const idleStarted = performance.now();
      const second = await sendTodoReminders(deps);
      const idleMs = performance.now() - idleStarted;
      // One message a member and day (the digest), listing that member's due todos.
      const reminded = await db.db.selectFrom('slack_posts').select(db.db.fn.countAll<string>().as('n')).where('kind', '=', 'todo_reminder').where('state', '=', 'sent').executeTakeFirstOrThrow();
      if (first.sent !== MEMBERS || slack.posts() !== first.sent || second.sent !== 0 || Number(reminded.n) !== MEMBERS * DUE_PER_MEMBER) {
        throw new Error(`reminders: expected ${MEMBERS} messages for ${MEMBERS * DUE_PER_MEMBER} todos, once, got ${JSON.stringify(first)}, then ${JSON.stringify(second)}, ${slack.posts()} posts, ${reminded.n} reminded`);
      }
      return [
        `reminders: sweep over ${MEMBERS * TODOS_PER_MEMBER} open todos sent ${first.sent} daily reminders (${MEMBERS * DUE_PER_MEMBER} todos) in ${seconds.toFixed(2)} s ` +
          `(${Math.round(first.sent / seconds)} messages/s, fake Slack answering at once)`,
        `reminders: the next sweep (nothing left to send) took ${idleMs.toFixed(0)} ms`,
      ];
    } finally {
      await db.close();
      await slack.close();
    }
  },
};
