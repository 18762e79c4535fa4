import type { Db } from '../src/domain/context.js';
import { pauseSubscription as markPaused } from '../src/domain/slack-subscriptions.js';
import { writeTransaction } from '../src/operations/write-transaction.js';
import type { SlackReply } from '../src/slack/command-context.js';
import type { SlackFailure } from '../src/slack/slack-errors.js';
import { subscriptionPausedView } from '../src/slack/views/milestones.js';
import { directMessage } from './direct-messages.js';
import type { SlackSweep } from './sweep.js';

export interface PausedSubscription {
  id: string;
  orgId: string;
  milestoneRef: string;
  channelId: string;
  /** The Slack user who subscribed the channel, told by DM; null when unlinked. */
  subscriberSlackId: string | null;
}

/** A channel subscription of any kind (a milestone's summaries, a board's card threads), as pausing it needs. */
export interface RefusedSubscription {
  id: string;
  channelId: string;
  subscriberSlackId: string | null;
  /** The job that saw the refusal, for the log. */
  job: string;
  /** Marks it paused in the caller's transaction; true only for the caller that paused it. */
  mark(trx: Db): Promise<boolean>;
  /** What its subscriber is told. */
  view: SlackReply;
}

/**
 * A subscription whose channel Slack refused (archived, deleted, or the bot is not in it):
 * paused instead of failing every period, and its subscriber told once by DM how to resume.
 * A DM that does not go out is logged; the pause stands either way.
 */
export async function pauseRefused(sweep: SlackSweep, sub: RefusedSubscription, failure: SlackFailure): Promise<void> {
  const { deps, slack } = sweep;
  const log = deps.log.child({ job: sub.job, subscription: sub.id, channel: sub.channelId, slack_error: failure.error });
  if (!(await writeTransaction(deps, (trx) => sub.mark(trx)))) return;
  log.warn("Slack refused the subscription's channel; subscription paused until someone subscribes it again");
  if (!sub.subscriberSlackId) {
    log.warn('the subscriber has no Slack link; nobody was told of the pause');
    return;
  }
  try {
    const dm = directMessage(deps, slack, sub.subscriberSlackId);
    const channel = await dm.channel();
    await slack.chat.postMessage({ channel, text: sub.view.text, blocks: sub.view.blocks }).catch(async (err: unknown) => {
      await dm.failed();
      throw err;
    });
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'could not tell the subscriber of the pause');
  }
}

/** A milestone's summaries subscription refused by Slack (see `pauseRefused`). */
export async function pauseSubscription(sweep: SlackSweep, sub: PausedSubscription, failure: SlackFailure): Promise<void> {
  await pauseRefused(
    sweep,
    {
      id: sub.id,
      channelId: sub.channelId,
      subscriberSlackId: sub.subscriberSlackId,
      job: 'milestone-summaries',
      mark: (trx) => markPaused(trx, sub, failure.error, sweep.deps.clock()),
      view: subscriptionPausedView(sub.milestoneRef, sub.channelId, failure.error),
    },
    failure,
  );
}
