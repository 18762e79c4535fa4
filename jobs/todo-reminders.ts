import type { WebClient } from '@slack/web-api';
import { sql, type Expression, type SqlBool } from 'kysely';
import { claimPosts, markSent, pruneSlackPosts, type SentPost } from '../src/db/slack-posts.js';
import type { JobResult, JobScope } from '../src/domain/jobs.js';
import { localToday } from '../src/domain/todo-due.js';
import { todoReminderView } from '../src/slack/views.js';
import { eachLimited, emptyResult, slackOrgId, type JobDeps } from './deps.js';
import { reminderDueDates } from './local-time.js';
import { postOnce, tally } from './post-once.js';
import { SlackSweep } from './sweep.js';

/**
 * Due-todo reminders: a direct message to a todo's owner at REMINDER_HOUR in the owner's time
 * zone on its due date (at the next sweep for a todo created or re-dated later that day), at
 * most once per todo and due date, with the todo, its priority, its card and a Done button.
 *
 * Whose: open todos of members of the SLACK_ORG organization (their personal todos too).
 * A member without a Slack link is skipped and counted. A reminder missed because the jobs
 * were down is caught up the next local day at the latest (see REMINDER_CATCH_UP_DAYS).
 */

// Candidates read per sweep (the rest wait for the next one), claimed in batches, posted a few at a time.
const MAX_PER_SWEEP = 50_000;
const CLAIM_BATCH = 200;
const POSTS_IN_FLIGHT = 8;

interface DueTodo {
  id: string;
  title: string;
  priority: string;
  due_on: string;
  slack_user_id: string | null;
  tz: string | null;
  card_ref: string | null;
  card_title: string | null;
}

/** Which due dates are due for reminders in each time zone the organization's members use. */
async function dueDatesByZone(deps: JobDeps, orgId: string, now: Date): Promise<Expression<SqlBool>[]> {
  const zones = await deps.db
    .selectFrom('members')
    .select(sql<string>`coalesce(tz, 'UTC')`.as('tz'))
    .distinct()
    .where('org_id', '=', orgId)
    .execute();
  return zones.map(({ tz }) => {
    const { from, through } = reminderDueDates(now, tz, deps.config.reminderHour);
    return sql<SqlBool>`(coalesce(m.tz, 'UTC') = ${tz} and t.due_on between ${from}::date and ${through}::date)`;
  });
}

/**
 * Open todos of the organization's members whose reminder is due and neither sent, given up,
 * nor held by another worker's live lease.
 *
 * ```sql
 * select t.*, m.slack_user_id, m.tz, card ref and title from todos t join members m on m.id = t.member_id
 * left join slack_posts p on p.kind = 'todo_reminder' and p.subject_id = t.id and p.period = t.due_on::text
 * where m.org_id = $1 and not t.done and ((m.tz = $zone and t.due_on between $from and $through) or …)
 *   and (p.subject_id is null or (p.state in ('sending','retry') and (p.lease_until is null or p.lease_until <= $now)))
 * ```
 */
async function dueTodos(deps: JobDeps, orgId: string, now: Date): Promise<DueTodo[]> {
  const zones = await dueDatesByZone(deps, orgId, now);
  if (zones.length === 0) return [];
  const { rows } = await sql<DueTodo>`
    select t.id, t.title, t.priority, t.due_on::text as due_on, m.slack_user_id, m.tz,
           b.ref_prefix || '-' || c.number as card_ref, c.title as card_title
    from todos t
    join members m on m.id = t.member_id
    left join slack_posts p on p.kind = 'todo_reminder' and p.subject_id = t.id and p.period = t.due_on::text
    left join cards c on c.id = t.card_id
    left join boards b on b.id = c.board_id
    where m.org_id = ${orgId} and not t.done and t.due_on is not null
      and (${sql.join(zones, sql` or `)})
      and (p.subject_id is null or (p.state in ('sending', 'retry') and (p.lease_until is null or p.lease_until <= ${now.toISOString()}::timestamptz)))
    order by t.due_on desc, t.id
    limit ${sql.lit(MAX_PER_SWEEP)}`.execute(deps.db);
  return rows;
}

/** One sweep: claims what is due now and sends it; returns what it did. */
export async function sendTodoReminders(deps: JobDeps, scope: JobScope = {}): Promise<JobResult> {
  const result = emptyResult();
  const orgId = await slackOrgId(deps, scope);
  if (!orgId) return result;
  const now = deps.clock();
  const due = await dueTodos(deps, orgId, now);
  const linked = due.filter((t) => t.slack_user_id !== null);
  result.skipped = due.length - linked.length;
  const slack = deps.slack;
  if (!slack) {
    result.skipped += linked.length;
    return result;
  }
  const sweep = new SlackSweep(deps, slack, 'todo-reminders');
  const dms = new Map<string, Promise<string>>();
  const openDm = (user: string): Promise<string> => {
    let dm = dms.get(user);
    if (!dm) {
      dm = openDirectMessage(slack, user);
      dm.catch(() => dms.delete(user));
      dms.set(user, dm);
    }
    return dm;
  };
  const byId = new Map(linked.map((t) => [t.id, t]));
  const todayIn = new Map<string | null, string>();
  const today = (tz: string | null) => todayIn.get(tz) ?? todayIn.set(tz, localToday(now, tz)).get(tz)!;
  // A refused token or a rate limit stops the sweep: what is not claimed yet stays due.
  for (let i = 0; i < linked.length && !sweep.halted; i += CLAIM_BATCH) {
    const batch = linked.slice(i, i + CLAIM_BATCH);
    const claims = await claimPosts(deps.db, 'todo_reminder', orgId, batch.map((t) => ({ subjectId: t.id, period: t.due_on })), deps.clock());
    const sent: SentPost[] = [];
    await eachLimited(claims, POSTS_IN_FLIGHT, async (claim) => {
      const todo = byId.get(claim.subjectId)!;
      const view = todoReminderView(
        { id: todo.id, title: todo.title, priority: todo.priority, due_on: todo.due_on, done: false },
        { card: todo.card_ref ? { ref: todo.card_ref, title: todo.card_title ?? '' } : null, today: today(todo.tz) },
      );
      const outcome = await postOnce(sweep, {
        claim,
        channel: () => openDm(todo.slack_user_id!),
        message: { text: view.text, blocks: view.blocks },
        marker: { event_type: 'tack_reminder', event_payload: { todo_id: todo.id, due_on: todo.due_on } },
        record: async (channelId, ts) => void sent.push({ claim, channelId, ts }),
      });
      tally(result, outcome);
    });
    // One commit for the batch. Should it fail, the rows stay `sending` and their next claim
    // finds the messages in the DMs instead of posting them again.
    await markSent(deps.db, sent, deps.clock()).catch((err: Error) => deps.log.error({ err: err.message, posts: sent.length }, 'reminders posted but not recorded'));
  }
  if (!scope.orgId) await pruneSlackPosts(deps.db, now);
  if (result.sent + result.failed > 0) deps.log.info({ job: 'todo-reminders', ...result }, 'todo reminders sent');
  return result;
}

async function openDirectMessage(slack: WebClient, user: string): Promise<string> {
  const res = await slack.conversations.open({ users: user });
  const id = res.channel?.id;
  if (!id) throw new Error('conversations.open returned no channel');
  return id;
}
