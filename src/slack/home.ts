import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { AppError } from '../domain/errors.js';
import { subscribedMilestonesOp } from '../operations/slack.js';
import { listNotificationsOp, markNotificationsReadOp } from '../operations/notifications.js';
import { HOME_NOTIFICATIONS } from './views/notifications.js';
import { slackCaller, type SlackCaller } from './caller.js';
import type { SlackDeps } from './deps.js';
import { classifySlackError } from './slack-errors.js';
import { openTodosThisWeek } from './todo-list.js';
import { HOME_MAX_CARDS, HOME_MAX_MILESTONES, homeView, unlinkedHomeView, type HomeData } from './views/home.js';
import type { MilestoneView } from './views/milestones.js';

/** What the Home tab shows, read through the operations as the member. */
export async function homeData(caller: SlackCaller): Promise<HomeData> {
  const [open, cards, subscribed, notifications] = await Promise.all([
    openTodosThisWeek(caller.call),
    caller.call('listCards', { assignee: 'me', status: 'in_progress', limit: HOME_MAX_CARDS }),
    caller.call(subscribedMilestonesOp, { limit: HOME_MAX_MILESTONES }),
    caller.call(listNotificationsOp, { limit: HOME_NOTIFICATIONS }),
  ]);
  const milestones = await Promise.all(
    subscribed.refs.map((ref) =>
      caller.call('getMilestoneStatus', { ref }).catch((err: unknown) => {
        // A subscription to a milestone deleted since: left out, as the summaries job skips it.
        if (err instanceof AppError && err.status === 404) return undefined;
        throw err;
      }),
    ),
  );
  return {
    todos: open.todos,
    todosTruncated: open.truncated,
    cards: cards.data,
    cardsTruncated: cards.next_cursor !== undefined,
    milestones: milestones.filter((m): m is MilestoneView => m !== undefined),
    notifications,
  };
}

// Until when Slack asked this server's Home refreshes to wait (a views.publish 429), per server.
const homeLimitedUntil = new WeakMap<object, number>();

/**
 * Publishes the Home tab of a Slack user (views.publish; `opened`: they opened it, which
 * marks their notifications read once shown): "My work" for a linked member,
 * how to link otherwise. Never throws: a Home that could not be refreshed is logged, and
 * the next app_home_opened tries again. Slack's 429 is never waited out (the client refuses
 * it, see boltClientOptions): the refresh is skipped, and so are the next ones until its
 * Retry-After has passed. A refresh is a nicety; a person's modal or click is not.
 */
export async function publishHome(deps: SlackDeps, client: WebClient, slackUserId: string, log: Logger, known?: SlackCaller, opened = false): Promise<void> {
  const now = deps.runtime.clock().getTime();
  if (now < (homeLimitedUntil.get(deps.runtime) ?? 0)) {
    log.debug({ slack_user: slackUserId }, 'Home refresh skipped: Slack asked to wait');
    return;
  }
  try {
    const caller = known ?? (await slackCaller(deps, client, slackUserId, log));
    const view = caller ? homeView(await homeData(caller)) : unlinkedHomeView(slackUserId);
    await client.views.publish({ user_id: slackUserId, view });
    // Opening Home reads the notifications: shown unread this once, read from then on.
    if (opened && caller && view.type === 'home') await caller.call(markNotificationsReadOp, {});
  } catch (err) {
    const failure = classifySlackError(err);
    if (failure.kind === 'rate_limited') {
      homeLimitedUntil.set(deps.runtime, now + failure.retryAfterSec * 1000);
      log.info({ slack_user: slackUserId, retry_after_s: failure.retryAfterSec }, 'Home refresh skipped: Slack rate limited views.publish');
      return;
    }
    log.warn({ err: (err as Error).message, slack_user: slackUserId }, 'could not publish the Home tab');
  }
}
