import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { AppError } from '../domain/errors.js';
import { subscribedMilestonesOp } from '../operations/slack.js';
import { slackCaller, type SlackCaller } from './caller.js';
import type { SlackDeps } from './deps.js';
import { openTodosThisWeek } from './todo-list.js';
import { HOME_MAX_CARDS, HOME_MAX_MILESTONES, homeView, unlinkedHomeView, type HomeData } from './views/home.js';
import type { MilestoneView } from './views/milestones.js';

/** What the Home tab shows, read through the operations as the member. */
export async function homeData(caller: SlackCaller): Promise<HomeData> {
  const [open, cards, subscribed] = await Promise.all([
    openTodosThisWeek(caller.call),
    caller.call('listCards', { assignee: 'me', status: 'in_progress', limit: HOME_MAX_CARDS }),
    caller.call(subscribedMilestonesOp, { limit: HOME_MAX_MILESTONES }),
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
  };
}

/**
 * Publishes the Home tab of a Slack user (views.publish): "My work" for a linked member,
 * how to link otherwise. Never throws: a Home that could not be refreshed is logged, and
 * the next app_home_opened tries again.
 */
export async function publishHome(deps: SlackDeps, client: WebClient, slackUserId: string, log: Logger, known?: SlackCaller): Promise<void> {
  try {
    const caller = known ?? (await slackCaller(deps, client, slackUserId, log));
    const view = caller ? homeView(await homeData(caller)) : unlinkedHomeView(slackUserId);
    await client.views.publish({ user_id: slackUserId, view });
  } catch (err) {
    log.warn({ err: (err as Error).message, slack_user: slackUserId }, 'could not publish the Home tab');
  }
}
