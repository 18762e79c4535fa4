import { dueReminderTodos, type DueTodo } from '../src/domain/due-reminders.js';
import type { JobResult, JobScope } from '../src/domain/jobs.js';
import { pruneSlackPosts } from '../src/domain/slack-posts.js';
import { localToday } from '../src/domain/todo-due.js';
import { writeTransaction } from '../src/operations/write-transaction.js';
import { eachLimited, emptyResult, slackOrgId, type JobDeps } from './deps.js';
import { directMessage } from './direct-messages.js';
import { sendDigest } from './todo-digest.js';
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

// Members sent to a few at a time.
const MEMBERS_IN_FLIGHT = 8;

/** One sweep: sends each member's reminder of the day that is due now; returns what it did. */
export async function sendTodoReminders(deps: JobDeps, scope: JobScope = {}): Promise<JobResult> {
  const result = emptyResult();
  const orgId = await slackOrgId(deps, scope);
  if (!orgId) return result;
  const now = deps.clock();
  const due = await dueReminderTodos(deps.db, orgId, now, deps.config.reminderHour);
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
  if (!scope.orgId) await writeTransaction(deps, (trx) => pruneSlackPosts(trx, now));
  if (result.sent + result.failed > 0) deps.log.info({ job: 'todo-reminders', ...result }, 'todo reminders sent');
  return result;
}
