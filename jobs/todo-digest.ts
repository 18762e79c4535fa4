import type { DueTodo } from '../src/domain/due-reminders.js';
import type { JobResult } from '../src/domain/jobs.js';
import { claimPosts, markGivenUp, markNotSent, markSent, postRecord, type Claim, type PostRecord } from '../src/domain/slack-posts.js';
import { writeTransaction } from '../src/operations/write-transaction.js';
import { byUrgency, refreshReminder } from '../src/slack/reminder-message.js';
import { todoDigestView, type DigestTodo } from '../src/slack/views/todos.js';
import type { JobDeps } from './deps.js';
import type { DirectMessage } from './direct-messages.js';
import { postOnce, tally } from './post-once.js';
import type { SlackSweep } from './sweep.js';

/** One member's reminder of the day: who, in which DM, what is due. */
export interface MemberDigest {
  orgId: string;
  memberId: string;
  /** The member's local date: the digest's period (one message per member and day). */
  today: string;
  dm: DirectMessage;
  /** Their todos whose reminder is due now (claimed below). */
  todos: DueTodo[];
}

function asDigestTodo(t: DueTodo): DigestTodo {
  return {
    id: t.id,
    title: t.title,
    priority: t.priority,
    due_on: t.due_on,
    done: false,
    ...(t.source_url ? { source_url: t.source_url } : {}),
    card: t.card_ref ? { ref: t.card_ref, title: t.card_title ?? '' } : null,
  };
}

/**
 * Sends one member's due reminders, at most once per todo and due date (each todo's own
 * `todo_reminder` claim), in one direct message per member and local day (the `todo_digest`
 * claim, subject the member, period the day):
 *
 * - the day's first: the digest is posted with the claimed todos, and both kinds of rows are
 *   recorded sent in one statement with its channel and ts;
 * - later that day (a todo created or re-dated to today after the digest went out): the
 *   digest message is updated in place to list it too (chat.update, safe to repeat), and its
 *   row records the digest's ts; still one message per day;
 * - a digest another worker holds, or one Slack refused: the todos are handed back untried
 *   and come with it on a later sweep.
 */
export async function sendDigest(sweep: SlackSweep, digest: MemberDigest, result: JobResult): Promise<void> {
  const { deps, slack } = sweep;
  // Both claims in one transaction (one commit): the todos' first, in subject order, then the day's digest.
  const { todoClaims, digestClaim } = await writeTransaction(deps, async (trx) => {
    const now = deps.clock();
    const todoClaims = await claimPosts(trx, 'todo_reminder', digest.orgId, digest.todos.map((t) => ({ subjectId: t.id, period: t.due_on })), now);
    if (todoClaims.length === 0) return { todoClaims, digestClaim: undefined };
    const [digestClaim] = await claimPosts(trx, 'todo_digest', digest.orgId, [{ subjectId: digest.memberId, period: digest.today }], now);
    return { todoClaims, digestClaim };
  });
  if (todoClaims.length === 0) return;
  const claimed = new Set(todoClaims.map((c) => c.subjectId));
  const todos = digest.todos.filter((t) => claimed.has(t.id)).map(asDigestTodo);
  if (digestClaim) {
    const view = todoDigestView([...todos].sort(byUrgency), digest.today);
    const outcome = await postOnce(sweep, {
      claim: digestClaim,
      channel: () => digest.dm.channel(),
      message: { text: view.text, blocks: view.blocks },
      marker: { event_type: 'tack_digest', event_payload: { member_id: digest.memberId, date: digest.today } },
      record: (channelId, ts) => writeTransaction(deps, (trx) => markSent(trx, [digestClaim, ...todoClaims].map((claim) => ({ claim, channelId, ts })), deps.clock())),
    });
    tally(result, outcome);
    if (outcome === 'sent') return;
    if (outcome === 'failed') await digest.dm.failed();
    const row = await digestRow(deps, digest);
    if (outcome === 'recovered') {
      // The message found may be an earlier attempt's, without todos claimed since: list them all.
      if (row?.channel_id && row.message_ts) await updateDigest(sweep, row.channel_id, row.message_ts).catch(() => {});
    } else {
      await handBack(deps, todoClaims, row);
    }
    return;
  }
  const row = await digestRow(deps, digest);
  if (row?.state !== 'sent' || !row.channel_id || !row.message_ts) {
    await handBack(deps, todoClaims, row);
    return;
  }
  try {
    await writeTransaction(deps, (trx) => markSent(trx, todoClaims.map((claim) => ({ claim, channelId: row.channel_id!, ts: row.message_ts! })), deps.clock()));
    await updateDigest(sweep, row.channel_id, row.message_ts);
    result.sent++;
  } catch (err) {
    // Recorded but not shown yet: the message is updated with them at the next change that day.
    deps.log.warn({ job: 'todo-reminders', member: digest.memberId, err: (err as Error).message }, "could not add todos to the day's reminder");
    result.failed++;
  }
}

function digestRow(deps: JobDeps, digest: MemberDigest): Promise<PostRecord | undefined> {
  return postRecord(deps.db, 'todo_digest', digest.memberId, digest.today);
}

/** The digest message again, listing every todo recorded in it, each in its state now. */
async function updateDigest(sweep: SlackSweep, channel: string, ts: string): Promise<void> {
  await refreshReminder(sweep.deps.db, sweep.slack, { channel, ts }, sweep.deps.log.child({ job: 'todo-reminders' }));
}

/**
 * Todos claimed for a digest that did not go out: due again when the digest is (its lease,
 * which its backoff or Slack's Retry-After set), their attempt given back; given up with it
 * once the digest is.
 */
async function handBack(deps: JobDeps, claims: Claim[], digestRow: { state: string; lease_until: string | null; last_error: string | null } | undefined): Promise<void> {
  const now = deps.clock();
  const error = `the day's reminder did not go out${digestRow?.last_error ? `: ${digestRow.last_error}` : ''}`;
  if (digestRow?.state === 'failed') {
    await writeTransaction(deps, (trx) => markGivenUp(trx, claims, error, now));
    return;
  }
  // Another worker posting the digest right now holds a lease of minutes but is done in a
  // moment: look again within a minute, to join its message then.
  const soon = now.getTime() + 60_000;
  const retryAt = new Date(digestRow?.lease_until ? Math.min(new Date(digestRow.lease_until).getTime(), digestRow.state === 'sending' ? soon : Infinity) : now.getTime());
  await writeTransaction(deps, async (trx) => {
    for (const claim of claims) await markNotSent(trx, claim, { mayBePosted: false, error, now, retryAt, notAttempted: true });
  });
}
