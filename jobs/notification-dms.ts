import type { JobResult, JobScope } from '../src/domain/jobs.js';
import { batchDueNotifications, batchItems, markBatchDelivered, pendingBatches, type PendingBatch } from '../src/domain/notification-batches.js';
import { claimPosts, markSent } from '../src/domain/slack-posts.js';
import { writeTransaction } from '../src/operations/write-transaction.js';
import { notificationDmView } from '../src/slack/views/notifications.js';
import { eachLimited, emptyResult, slackOrgId, type JobDeps } from './deps.js';
import { directMessage } from './direct-messages.js';
import { postOnce, tally } from './post-once.js';
import { SlackSweep } from './sweep.js';

/**
 * Personal notifications by DM: each linked member's notifications of a minute in one direct
 * message (src/domain/notification-batches.ts), posted exactly once through the claim table
 * as reminders are (`notification_dm`, subject the member, period the batch): a Slack that
 * answers late, or a worker killed mid-post, leaves the claim `sending`, and the next claim
 * looks for the DM's marker in the conversation before posting again.
 */

const MEMBERS_IN_FLIGHT = 8;

/** One sweep: batches what is due and sends each batch not sent yet. */
export async function sendNotificationDms(deps: JobDeps, scope: JobScope = {}): Promise<JobResult> {
  const result = emptyResult();
  const slack = deps.slack;
  const orgId = await slackOrgId(deps, scope);
  if (!orgId || !slack) return result;
  const now = deps.clock();
  await writeTransaction(deps, (trx) => batchDueNotifications(trx, orgId, now));
  const batches = await pendingBatches(deps.db, orgId, now);
  if (batches.length === 0) return result;
  const sweep = await SlackSweep.start(deps, slack, 'notifications');
  await eachLimited(
    batches,
    MEMBERS_IN_FLIGHT,
    async (batch) => {
      if (sweep.halted) {
        result.skipped++;
        return;
      }
      await sendBatch(sweep, orgId, batch, result);
    },
    deps.stopping,
  );
  if (result.sent + result.failed > 0) deps.log.info({ job: 'notifications', ...result }, 'notification DMs sent');
  return result;
}

async function sendBatch(sweep: SlackSweep, orgId: string, batch: PendingBatch, result: JobResult): Promise<void> {
  const { deps, slack } = sweep;
  const [claim] = await writeTransaction(deps, (trx) => claimPosts(trx, 'notification_dm', orgId, [{ subjectId: batch.memberId, period: batch.batch }], deps.clock()));
  // Sent, given up, or another worker's right now.
  if (!claim) return;
  const items = await batchItems(deps.db, batch.memberId, batch.batch);
  const view = notificationDmView(items);
  const dm = directMessage(deps, slack, batch.slackUserId, batch.dmChannel);
  const outcome = await postOnce(sweep, {
    claim,
    channel: () => dm.channel(),
    message: { text: view.text, ...(view.blocks ? { blocks: view.blocks } : {}) },
    marker: { event_type: 'tack_notifications', event_payload: { member_id: batch.memberId, batch: batch.batch } },
    record: (channelId, ts) =>
      writeTransaction(deps, async (trx) => {
        const now = deps.clock();
        await markSent(trx, [{ claim, channelId, ts }], now);
        await markBatchDelivered(trx, batch.memberId, batch.batch, now);
      }),
  });
  if (outcome === 'failed') await dm.failed();
  tally(result, outcome);
}
