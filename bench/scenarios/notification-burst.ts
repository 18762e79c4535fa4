import { WebClient } from '@slack/web-api';
import pino from 'pino';
import { consumeEvents } from '../../jobs/event-consumers.js';
import { sendNotificationDms } from '../../jobs/notification-dms.js';
import { connect } from '../../src/db/connect.js';
import { notificationsConsumer } from '../../src/domain/notifications.js';
import { startFakeSlackApi } from '../fake-slack-api.js';
import type { Scenario } from '../scenario.js';

const MEMBERS = 50;
const CARDS = 100;
const PER_CARD = 5;

/**
 * A burst of 500 assignments to 50 members (issue 30): 100 cards created through `/v1`, five
 * assignees each, every member assigned ten times. Then the notifications consumer reads the
 * events and the DM job runs a minute later (each member's notifications are grouped within a
 * minute): the DMs posted (50, not 500), the time each step took, and the heap around them.
 */
export const notificationBurst: Scenario = {
  name: 'notification-burst',
  async setup() {
    return [];
  },
  async extra(ctx) {
    const auth = { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${ctx.url}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`POST ${path} answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as { id: string };
    };
    const people: string[] = [];
    for (let i = 0; i < MEMBERS; i++) people.push((await post('/v1/members', { name: `Burst ${i}`, slack_user_id: `UBURST${String(i).padStart(3, '0')}`, tz: 'UTC' })).id);
    await post('/v1/boards', { name: 'Burst', slug: 'burst', ref_prefix: 'BRS' });
    const slack = await startFakeSlackApi();
    const db = await connect({ databaseUrl: ctx.databaseUrl, dataDir: '', poolSize: 4 });
    let now = new Date();
    const deps = {
      db: db.db,
      slack: new WebClient('xoxb-bench', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } }),
      clock: () => now,
      config: { reminderHour: 0, slack: { org: 'default' } },
      log: pino({ level: 'silent' }),
    };
    try {
      // Whatever came before (the members' own events) is read and sent first: the burst is measured alone.
      await consumeEvents(deps, notificationsConsumer);
      now = new Date(now.getTime() + 61_000);
      await sendNotificationDms(deps);
      const before = slack.posts();
      const writeStart = performance.now();
      for (let c = 0; c < CARDS; c++) {
        const assignees = Array.from({ length: PER_CARD }, (_, k) => people[(c * PER_CARD + k) % MEMBERS]!);
        await post('/v1/cards', { board: 'burst', title: `Burst card ${c}`, assignee_ids: assignees });
      }
      const writeSeconds = (performance.now() - writeStart) / 1000;
      global.gc?.();
      const heapBefore = process.memoryUsage().heapUsed;
      const consumeStart = performance.now();
      const consumed = await consumeEvents(deps, notificationsConsumer);
      const consumeMs = performance.now() - consumeStart;
      now = new Date(now.getTime() + 61_000);
      const sendStart = performance.now();
      const sent = await sendNotificationDms(deps);
      const sendMs = performance.now() - sendStart;
      const heapPeak = process.memoryUsage().heapUsed;
      const dms = slack.posts() - before;
      const { rows } = await ctx.pool.query<{ n: string }>('select count(*) as n from notifications where member_id = any($1)', [people]);
      if (dms !== MEMBERS) throw new Error(`notification-burst: expected ${MEMBERS} DMs, Slack got ${dms}`);
      return [
        `notification-burst: ${CARDS * PER_CARD} assignments to ${MEMBERS} members (${CARDS} cards written through /v1 in ${writeSeconds.toFixed(1)} s) → ${rows[0]!.n} notifications, **${dms} DMs** (${sent.sent} sent, ${sent.failed} failed)`,
        `notification-burst: the consumer read ${consumed} events in ${consumeMs.toFixed(0)} ms; the DM job a minute later sent them in ${sendMs.toFixed(0)} ms; heap ${(heapBefore / 1048576).toFixed(1)} → ${(heapPeak / 1048576).toFixed(1)} MB`,
      ];
    } finally {
      await db.close();
      await slack.close();
    }
  },
};
