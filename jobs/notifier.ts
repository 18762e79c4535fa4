import type { EventConsumer } from '../src/domain/event-consumers.js';
import { notificationsConsumer } from '../src/domain/notifications.js';
import type { JobDeps } from './deps.js';
import { consumeEvents, wokenLoop, type WokenLoop } from './event-consumers.js';
import { sendNotificationDms } from './notification-dms.js';

/** The consumers of the events that run beside the jobs; each keeps its own cursor. */
export const EVENT_CONSUMERS: readonly EventConsumer[] = [notificationsConsumer];

/** How often the notifier looks without being woken (a missed NOTIFY, a DM's minute passing). */
export const NOTIFIER_EVERY_MS = 5_000;

/**
 * One pass: every consumer catches up on the events committed since its cursor, then the
 * notification DMs that are due go out.
 */
export async function runNotifier(deps: JobDeps): Promise<void> {
  for (const consumer of EVENT_CONSUMERS) await consumeEvents(deps, consumer);
  await sendNotificationDms(deps);
}

/**
 * The notifier of a process that runs the jobs: woken by the events NOTIFY (`poke`, from the
 * process's one LISTEN connection), and every `everyMs` regardless. Any number of processes
 * may run it: consumers take their cursor's lock, DMs are claimed.
 */
export function startNotifier(deps: JobDeps, everyMs = NOTIFIER_EVERY_MS): WokenLoop {
  const log = deps.log.child({ component: 'notifier' });
  return wokenLoop(() => runNotifier(deps), {
    everyMs,
    onError: (err) => log.error({ err: err.message }, 'notifications: a pass failed; the next one tries again'),
  });
}
