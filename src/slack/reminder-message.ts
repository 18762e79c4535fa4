import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { reminderMessageAt, todosListedIn, type ListedTodo } from '../domain/reminder-messages.js';
import type { Runtime } from '../operations/execute.js';
import { describeSlackFailure, textAloneIfRefused } from './slack-errors.js';
import { todoDigestView, type DigestTodo } from './views/todos.js';

const PRIORITY_RANK: Record<string, number> = { urgent: 0, high: 1, medium: 2, low: 3 };

/** Urgent first, then the oldest due date, then by title: what a list of 20 shows first. */
export function byUrgency(a: DigestTodo, b: DigestTodo): number {
  return (PRIORITY_RANK[a.priority] ?? 9) - (PRIORITY_RANK[b.priority] ?? 9) || (a.due_on ?? '').localeCompare(b.due_on ?? '') || a.title.localeCompare(b.title) || a.id.localeCompare(b.id);
}

/** A listed todo as the reminder shows it: done, snoozed (its due date moved on since), or open. */
function asShown(t: ListedTodo): DigestTodo {
  return {
    id: t.id,
    title: t.title,
    priority: t.priority,
    due_on: t.due_on,
    done: t.done,
    ...(t.source_url ? { source_url: t.source_url } : {}),
    card: t.card_ref ? { ref: t.card_ref, title: t.card_title ?? '' } : null,
    snoozed: !t.done && t.due_on !== t.period,
  };
}

// Reads and updates of one message, one after another in this process (see refreshReminder).
const queues = new Map<string, Promise<unknown>>();

function oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
  const before = queues.get(key) ?? Promise.resolve();
  const run = before.then(work, work);
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(key, settled);
  void settled.then(() => {
    if (queues.get(key) === settled) queues.delete(key);
  });
  return run;
}

// Rounds of read, update and read again before giving up on a message that keeps changing.
const MAX_ROUNDS = 4;

export interface ReminderAt {
  channel: string;
  ts: string;
}

/**
 * Shows the day's reminder message as the database says it is now: every todo it lists, each
 * in its state now (done, snoozed, open), rebuilt from the database, never from the snapshot
 * of the message a click carries (two quick clicks each carry the message as it was before
 * either, and the second update would undo the first).
 *
 * Updates of one message run one at a time in this process, each reading the database after
 * the changes before it; against other processes (a click answered by another server, a
 * worker adding a todo), each update is followed by another read, and the message updated
 * again until what it shows is what the database holds, so the last update Slack applies is
 * the latest state. `memberId`: only the member's own reminder (a click's). Answers false when
 * tack has no record of such a reminder; throws what Slack answered when it refused.
 */
export async function refreshReminder(db: Runtime['db'], slack: WebClient, at: ReminderAt, log: Logger, memberId?: string): Promise<boolean> {
  return oneAtATime(`${at.channel} ${at.ts}`, async () => {
    const message = await reminderMessageAt(db, at.channel, at.ts);
    if (!message || (memberId !== undefined && message.memberId !== memberId)) return false;
    let shown: string | undefined;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const todos = (await todosListedIn(db, message.orgId, at.channel, at.ts)).map(asShown).sort(byUrgency);
      const view = todoDigestView(todos, message.day);
      const rendered = JSON.stringify(view);
      if (rendered === shown) return true;
      await textAloneIfRefused(view, (m) => slack.chat.update({ channel: at.channel, ts: at.ts, text: m.text, ...(m.blocks ? { blocks: m.blocks } : {}) }), (failure) =>
        log.warn({ member: message.memberId, err: describeSlackFailure(failure) }, "Slack refused the reminder's blocks; updating its text alone"),
      );
      shown = rendered;
    }
    log.warn({ member: message.memberId, channel: at.channel, ts: at.ts }, 'the reminder kept changing while it was updated; the next change shows it again');
    return true;
  });
}
