import { sql, type Expression, type SqlBool } from 'kysely';
import { pruneSlackPosts } from '../src/db/slack-posts.js';
import type { JobResult, JobScope } from '../src/domain/jobs.js';
import { localToday } from '../src/domain/todo-due.js';
import { eachLimited, emptyResult, slackOrgId, type JobDeps } from './deps.js';
import { directMessage } from './direct-messages.js';
import { reminderDueDates } from './local-time.js';
import { sendDigest, type DueTodo } from './todo-digest.js';
import { SlackSweep } from './sweep.js';

/**
 * Due-todo reminders: one direct message per member and local day (a digest), at the
 * member's own `reminder_hour` (else REMINDER_HOUR) in their time zone, listing that day's
 * due todos, each with Done and Snooze; at most once per todo and due date (see
 * `sendDigest`). A todo created or re-dated to today after the digest went out is added to
 * it at the next sweep; a snoozed todo gets its own reminder on its new date.
 *
 * Whose: open todos of members of the SLACK_ORG organization (their personal todos too).
 * A member without a Slack link is skipped and counted. A reminder missed because the jobs
 * were down is caught up the next local day at the latest (see REMINDER_CATCH_UP_DAYS).
 */

// Candidates read per sweep (the rest wait for the next one); members sent to a few at a time.
const MAX_PER_SWEEP = 50_000;
const MEMBERS_IN_FLIGHT = 8;

/** Which due dates are due for reminders for each time zone and reminder hour the organization's members use. */
async function dueDatesByZone(deps: JobDeps, orgId: string, now: Date): Promise<Expression<SqlBool>[]> {
  const defaultHour = deps.config.reminderHour;
  const zones = await deps.db
    .selectFrom('members')
    .select([sql<string>`coalesce(tz, 'UTC')`.as('tz'), sql<number>`coalesce(reminder_hour, ${defaultHour})`.as('hour')])
    .distinct()
    .where('org_id', '=', orgId)
    .execute();
  return zones.map(({ tz, hour }) => {
    const { from, through } = reminderDueDates(now, tz, Number(hour));
    return sql<SqlBool>`(coalesce(m.tz, 'UTC') = ${tz} and coalesce(m.reminder_hour, ${defaultHour}) = ${hour} and t.due_on between ${from}::date and ${through}::date)`;
  });
}

/**
 * Open todos of the organization's members whose reminder is due and neither sent, given up,
 * nor held by another worker's live lease.
 *
 * ```sql
 * select t.*, m.slack_user_id, m.tz, card ref and title, d.channel_id from todos t join members m on m.id = t.member_id
 * left join slack_dm_channels d on d.slack_user_id = m.slack_user_id
 * left join slack_posts p on p.kind = 'todo_reminder' and p.subject_id = t.id and p.period = t.due_on::text
 * where m.org_id = $1 and not t.done and ((m.tz = $zone and m.reminder_hour = $hour and t.due_on between $from and $through) or …)
 *   and (p.subject_id is null or (p.state in ('sending','retry') and (p.lease_until is null or p.lease_until <= $now)))
 * ```
 */
async function dueTodos(deps: JobDeps, orgId: string, now: Date): Promise<DueTodo[]> {
  const zones = await dueDatesByZone(deps, orgId, now);
  if (zones.length === 0) return [];
  const { rows } = await sql<DueTodo>`
    select t.id, t.title, t.priority, t.due_on::text as due_on, t.source_url, m.id as member_id, m.slack_user_id, m.tz,
           b.ref_prefix || '-' || c.number as card_ref, c.title as card_title, d.channel_id as dm_channel
    from todos t
    join members m on m.id = t.member_id
    left join slack_dm_channels d on d.slack_user_id = m.slack_user_id
    left join slack_posts p on p.kind = 'todo_reminder' and p.subject_id = t.id and p.period = t.due_on::text
    left join cards c on c.id = t.card_id
    left join boards b on b.id = c.board_id
    where m.org_id = ${orgId} and not t.done and t.due_on is not null
      and (${sql.join(zones, sql` or `)})
      and (p.subject_id is null or (p.state in ('sending', 'retry') and (p.lease_until is null or p.lease_until <= ${now.toISOString()}::timestamptz)))
    order by m.id, t.due_on desc, t.id
    limit ${sql.lit(MAX_PER_SWEEP)}`.execute(deps.db);
  return rows;
}

/** One sweep: sends each member's reminder of the day that is due now; returns what it did. */
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
  const sweep = await SlackSweep.start(deps, slack, 'todo-reminders');
  const byMember = new Map<string, DueTodo[]>();
  for (const t of linked) byMember.set(t.member_id, [...(byMember.get(t.member_id) ?? []), t]);
  // A refused token or a rate limit stops the sweep: what is not claimed yet stays due.
  await eachLimited([...byMember.values()], MEMBERS_IN_FLIGHT, async (todos) => {
    // Held for the next sweep (a refused token, Slack's Retry-After): due, not sent.
    if (sweep.halted) {
      result.skipped++;
      return;
    }
    const { member_id, slack_user_id, tz, dm_channel } = todos[0]!;
    // The member's DM as kept from an earlier day: no conversations.open (Tier 3) per member and day.
    const dm = directMessage(deps, slack, slack_user_id!, dm_channel);
    await sendDigest(sweep, { orgId, memberId: member_id, today: localToday(now, tz), dm, todos }, result);
  }, deps.stopping);
  if (!scope.orgId) await pruneSlackPosts(deps.db, now);
  if (result.sent + result.failed > 0) deps.log.info({ job: 'todo-reminders', ...result }, 'todo reminders sent');
  return result;
}
