import { claimPosts, markSent } from '../src/db/slack-posts.js';
import { AppError } from '../src/domain/errors.js';
import type { JobResult, JobScope } from '../src/domain/jobs.js';
import { slackPrincipal } from '../src/domain/slack-links.js';
import { callOperation } from '../src/operations/call.js';
import { milestoneStatusView, type MilestoneView } from '../src/slack/views/milestones.js';
import { emptyResult, slackOrgId, type JobDeps } from './deps.js';
import { summaryPeriod } from './local-time.js';
import { postOnce, tally } from './post-once.js';
import { pauseSubscription } from './subscription-pause.js';
import { SlackSweep } from './sweep.js';

/**
 * Milestone summaries: each subscribed channel gets the milestone's status (the view of
 * `/milestone <ref> status`, with the numbers of `getMilestoneStatus` read as the member who
 * subscribed) once per period: daily, or weekly from Monday, at REMINDER_HOUR in the time
 * zone of the subscription. A period whose hour passed while the jobs were down is still
 * posted later in that period.
 */
export async function postMilestoneSummaries(deps: JobDeps, scope: JobScope = {}): Promise<JobResult> {
  const result = emptyResult();
  const orgId = await slackOrgId(deps, scope);
  if (!orgId) return result;
  const now = deps.clock();
  const subscriptions = await deps.db
    .selectFrom('slack_subscriptions as s')
    .leftJoin('members as m', (j) => j.onRef('m.id', '=', 's.created_by').onRef('m.org_id', '=', 's.org_id'))
    .select(['s.id', 's.milestone_ref', 's.channel_id', 's.cadence', 's.tz', 's.last_sent_period'])
    .select(['m.id as member_id', 'm.name', 'm.email', 'm.role', 'm.tz as member_tz', 'm.slack_user_id'])
    .where('s.org_id', '=', orgId)
    .where('s.paused_at', 'is', null)
    .orderBy('s.id')
    .execute();
  const runtime = { db: deps.db, clock: deps.clock };
  const sweep = deps.slack ? await SlackSweep.start(deps, deps.slack, 'milestone-summaries') : undefined;
  for (const sub of subscriptions) {
    if (deps.stopping?.()) break;
    if (sweep?.halted) break;
    const { period, due } = summaryPeriod(now, sub.tz, sub.cadence, deps.config.reminderHour);
    if (!due || sub.last_sent_period === period) continue;
    const log = deps.log.child({ job: 'milestone-summaries', subscription: sub.id, period });
    if (!sub.member_id || !sub.role || !sub.name) {
      log.warn('the member who subscribed is gone; summary skipped');
      result.skipped++;
      continue;
    }
    const member = slackPrincipal({
      id: sub.member_id,
      orgId,
      name: sub.name,
      email: sub.email ?? null,
      role: sub.role,
      tz: sub.member_tz ?? null,
      slackUserId: sub.slack_user_id ?? '',
    });
    const principal = { ...member, face: 'job' as const };
    let status: MilestoneView;
    try {
      status = await callOperation(runtime, 'getMilestoneStatus', principal, { ref: sub.milestone_ref });
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      log.warn({ code: err.code }, 'milestone status unavailable; summary skipped');
      result.skipped++;
      continue;
    }
    if (!sweep) {
      result.skipped++;
      continue;
    }
    const [claim] = await claimPosts(deps.db, 'milestone_summary', orgId, [{ subjectId: sub.id, period }], deps.clock());
    if (!claim) continue;
    const { text, blocks } = milestoneStatusView(status);
    const outcome = await postOnce(sweep, {
      claim,
      channel: async () => sub.channel_id,
      message: { text, blocks },
      marker: { event_type: 'tack_summary', event_payload: { subscription_id: sub.id, period } },
      record: (channelId, ts) =>
        deps.db.transaction().execute(async (trx) => {
          await markSent(trx, [{ claim, channelId, ts }], deps.clock());
          await trx.updateTable('slack_subscriptions').set({ last_sent_period: period }).where('org_id', '=', orgId).where('id', '=', sub.id).execute();
        }),
      onConversationRefused: (failure) =>
        pauseSubscription(sweep, { id: sub.id, orgId, milestoneRef: sub.milestone_ref, channelId: sub.channel_id, subscriberSlackId: sub.slack_user_id ?? null }, failure),
    });
    tally(result, outcome);
  }
  if (result.sent + result.failed > 0) deps.log.info({ job: 'milestone-summaries', ...result }, 'milestone summaries posted');
  return result;
}
