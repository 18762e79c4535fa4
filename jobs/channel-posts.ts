import { setTimeout as sleepFor } from 'node:timers/promises';
import type { Db } from '../src/domain/context.js';
import { pauseBoardSubscription } from '../src/domain/board-subscriptions.js';
import { dequeuePost, eventsById, memberLabels, queueChannelPosts, queuedPosts, reserveChannelSlot, type QueuedPost } from '../src/domain/channel-posts.js';
import { AppError } from '../src/domain/errors.js';
import { mentionedIds } from '../src/domain/mentions.js';
import type { EventRow } from '../src/domain/events.js';
import type { EventConsumer } from '../src/domain/event-consumers.js';
import type { JobResult } from '../src/domain/jobs.js';
import { claimPosts, postRecord } from '../src/domain/slack-posts.js';
import { slackPrincipal } from '../src/domain/slack-links.js';
import { callOperation } from '../src/operations/call.js';
import { writeTransaction } from '../src/operations/write-transaction.js';
import type { SlackFailure } from '../src/slack/slack-errors.js';
import { assigneeLabel, boardSubscriptionPausedView, cardThreadEventView, cardThreadParentView, threadCard, type ThreadCard } from '../src/slack/views/card-threads.js';
import { eachLimited, emptyResult, slackOrgId, type JobDeps } from './deps.js';
import { consumeEvents } from './event-consumers.js';
import { postOnce, tally } from './post-once.js';
import { pauseRefused } from './subscription-pause.js';
import { SlackSweep } from './sweep.js';
import { findMarkedReply } from './thread-replies.js';

/**
 * Board subscriptions' posts (contract §11): each card of a subscribed board gets one parent
 * message in the channel (its first event seen makes it), every later event a reply in its
 * thread, and the parent is updated to the card's current state after each reply. Exactly
 * once through the claim table (`card_parent` per subscription and card, `card_event` per
 * subscription and event; a post whose outcome is unknown is looked for, in the channel's
 * history or the thread, before it is posted again). One post a second per channel
 * (`reserveChannelSlot`), a burst queued in Postgres, never dropped. Slack refusing the
 * channel pauses the subscription and tells its subscriber by DM, as summaries do.
 */

/** The consumer that turns events into queued channel posts. */
export const CHANNEL_POSTS_CONSUMER: EventConsumer = { name: 'slack-channel-posts', consume: async (trx, rows) => {
    await queueChannelPosts(trx, rows);
  },
};

export interface ChannelPostDeps extends JobDeps {
  /** The web app's address, for links to cards; none: titles without links. */
  appUrl?: string;
  /** Waits `ms` (tests with an injected clock move it instead). */
  sleep?: (ms: number) => Promise<void>;
  /** Spacing of posts in one channel (Slack: one a second). */
  spacingMs?: number;
}

/** Posts read from the queue per sweep; the rest wait for the next. */
const SWEEP_POSTS = 200;
/** Channels posted to at once. */
const CHANNEL_LANES = 4;
const SPACING_MS = 1_000;

/** One run: queue what new events mean for subscribed channels, then post what is owed. */
export async function runChannelPosts(deps: ChannelPostDeps): Promise<JobResult> {
  await consumeEvents(deps, CHANNEL_POSTS_CONSUMER);
  return postChannelQueue(deps);
}

/** Posts what the queue holds, channel by channel in queue order, at Slack's pace. */
export async function postChannelQueue(deps: ChannelPostDeps): Promise<JobResult> {
  const result = emptyResult();
  const orgId = await slackOrgId(deps, {});
  if (!orgId || !deps.slack) return result;
  const queued = await queuedPosts(deps.db, orgId, SWEEP_POSTS);
  if (queued.length === 0) return result;
  const sweep = await SlackSweep.start(deps, deps.slack, 'channel-posts');
  const events = await eventsById(deps.db, orgId, queued.map((q) => q.event_id));
  const byChannel = new Map<string, QueuedPost[]>();
  for (const q of queued) byChannel.set(q.channel_id, [...(byChannel.get(q.channel_id) ?? []), q]);
  await eachLimited([...byChannel.values()], CHANNEL_LANES, (posts) => postChannel(deps, sweep, orgId, posts, events, result), () => deps.stopping?.() ?? false);
  if (result.sent + result.failed > 0) deps.log.info({ job: 'channel-posts', ...result }, 'card threads posted');
  return result;
}

/** Waits for the channel's next free second (shared by every worker through Postgres). */
async function pace(deps: ChannelPostDeps, channel: string): Promise<void> {
  const slot = await writeTransaction(deps, (trx) => reserveChannelSlot(trx, channel, deps.clock(), deps.spacingMs ?? SPACING_MS));
  const wait = slot.getTime() - deps.clock().getTime();
  if (wait > 0) await (deps.sleep ?? ((ms: number) => sleepFor(ms)))(wait);
}

const subjectOf = (q: QueuedPost) => `${q.subscription_id}:${q.card_id}`;

/**
 * The posts of one channel, in order. A post that cannot go now (another worker holds it,
 * Slack failed, the sweep halted) stops the channel for this sweep, so a card's thread never
 * gets its events out of order.
 */
async function postChannel(deps: ChannelPostDeps, sweep: SlackSweep, orgId: string, posts: QueuedPost[], events: Map<string, EventRow>, result: JobResult): Promise<void> {
  for (let i = 0; i < posts.length; i++) {
    if (sweep.halted || deps.stopping?.()) return;
    const q = posts[i]!;
    const event = events.get(q.event_id);
    if (!event) {
      // Pruned before it was posted (kept 90 days): nothing left to say.
      await dequeuePost(deps.db, q.position);
      continue;
    }
    const laterForCard = posts.slice(i + 1).some((p) => p.card_id === q.card_id && p.subscription_id === q.subscription_id);
    const done = await postOne(deps, sweep, orgId, q, event, !laterForCard, result);
    if (!done) return;
  }
}

/** True when the post is settled (sent, found, given up); false when the channel must wait. */
async function postOne(deps: ChannelPostDeps, sweep: SlackSweep, orgId: string, q: QueuedPost, event: EventRow, updateParent: boolean, result: JobResult): Promise<boolean> {
  const subject = subjectOf(q);
  const parent = await postRecord(deps.db, 'card_parent', subject, 'parent');
  if (parent?.state === 'failed') {
    // The card's thread was given up: its events have nowhere to go.
    await dequeuePost(deps.db, q.position);
    return true;
  }
  if (parent?.state !== 'sent') return postParent(deps, sweep, orgId, q, event, result);
  const threadTs = parent.message_ts!;
  const [claim] = await writeTransaction(deps, (trx) => claimPosts(trx, 'card_event', orgId, [{ subjectId: subject, period: q.event_id }], deps.clock()));
  if (!claim) return settledElsewhere(deps.db, q, 'card_event', q.event_id);
  await pace(deps, q.channel_id);
  const marker = { event_type: 'tack_card_event', event_payload: { subscription_id: q.subscription_id, event_id: q.event_id } };
  const outcome = await postOnce(sweep, {
    claim,
    channel: async () => q.channel_id,
    message: cardThreadEventView(event, await mentionedNames(deps, orgId, event)),
    threadTs,
    marker,
    find: (channel) => findMarkedReply(sweep.slack, channel, threadTs, marker),
    onConversationRefused: (failure) => pause(deps, sweep, q, failure),
  });
  tally(result, outcome);
  if (outcome !== 'sent' && outcome !== 'recovered') return false;
  await dequeuePost(deps.db, q.position);
  if (updateParent) await refreshParent(deps, sweep, orgId, q, event, threadTs);
  return true;
}

/** The card's first event seen: its parent message, which stands for that event too. */
async function postParent(deps: ChannelPostDeps, sweep: SlackSweep, orgId: string, q: QueuedPost, event: EventRow, result: JobResult): Promise<boolean> {
  const subject = subjectOf(q);
  const [claim] = await writeTransaction(deps, (trx) => claimPosts(trx, 'card_parent', orgId, [{ subjectId: subject, period: 'parent' }], deps.clock()));
  if (!claim) return false;
  const card = await cardState(deps, orgId, q, event);
  await pace(deps, q.channel_id);
  const outcome = await postOnce(sweep, {
    claim,
    channel: async () => q.channel_id,
    message: cardThreadParentView(card, q.board_slug),
    marker: { event_type: 'tack_card_thread', event_payload: { subscription_id: q.subscription_id, card_id: q.card_id } },
    onConversationRefused: (failure) => pause(deps, sweep, q, failure),
  });
  tally(result, outcome);
  if (outcome !== 'sent' && outcome !== 'recovered') return false;
  await dequeuePost(deps.db, q.position);
  return true;
}

/** A post nobody may claim now: done (sent or given up: off the queue), or another worker's (wait). */
async function settledElsewhere(db: Db, q: QueuedPost, kind: 'card_event', period: string): Promise<boolean> {
  const record = await postRecord(db, kind, subjectOf(q), period);
  if (record?.state === 'sent' || record?.state === 'failed' || record === undefined) {
    // undefined: the subscription went (or was paused) since the queue was read.
    await dequeuePost(db, q.position);
    return true;
  }
  return false;
}

/** The names of the organization's members a comment's body mentions (`@mem_…`), for the thread to show `@Name`. */
async function mentionedNames(deps: ChannelPostDeps, orgId: string, event: EventRow): Promise<Map<string, string>> {
  const body = event.type === 'comment.created' && event.data && typeof event.data === 'object' ? (event.data as Record<string, unknown>).body : undefined;
  if (typeof body !== 'string') return new Map();
  const found = await memberLabels(deps.db, orgId, mentionedIds(body));
  return new Map([...found].map(([id, m]) => [id, m.name]));
}

/** The card as its parent shows it: read as the subscriber; once deleted, from the event. */
async function cardState(deps: ChannelPostDeps, orgId: string, q: QueuedPost, event: EventRow): Promise<ThreadCard> {
  const url = (ref: string) => (deps.appUrl ? `${deps.appUrl.replace(/\/+$/, '')}/cards/${encodeURIComponent(ref)}` : undefined);
  const labels = async (ids: readonly string[]) => {
    const found = await memberLabels(deps.db, orgId, ids);
    return ids.flatMap((id) => (found.has(id) ? [assigneeLabel(found.get(id)!)] : []));
  };
  if (q.member_id && q.role && q.name) {
    const member = slackPrincipal({ id: q.member_id, orgId, name: q.name, email: q.email ?? null, role: q.role, tz: q.tz ?? null, slackUserId: q.slack_user_id ?? '' });
    try {
      const card = await callOperation({ db: deps.db, clock: deps.clock }, 'getCard', { ...member, face: 'job' as const }, { id: q.card_id });
      return threadCard(card, await labels(card.assignee_ids), url(card.ref));
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
    }
  }
  // The card is gone (or its subscriber is): what the event last knew of it.
  const data = (event.data ?? {}) as Partial<{ ref: string; title: string; workflow_status: string; assignee_ids: string[] }>;
  return {
    id: q.card_id,
    ref: data.ref ?? event.subject_ref ?? q.card_id,
    title: data.title ?? '',
    workflow_status: data.workflow_status ?? 'backlog',
    assignees: await labels(data.assignee_ids ?? []),
    url: undefined,
    deleted: event.type === 'card.deleted' || event.data === null,
  };
}

/** The parent shows the card as it is now (chat.update: it edits, never posts, so it needs no claim). */
async function refreshParent(deps: ChannelPostDeps, sweep: SlackSweep, orgId: string, q: QueuedPost, event: EventRow, ts: string): Promise<void> {
  try {
    const card = await cardState(deps, orgId, q, event);
    if (event.type === 'card.deleted') card.deleted = true;
    const view = cardThreadParentView(card, q.board_slug);
    await sweep.slack.chat.update({ channel: q.channel_id, ts, text: view.text, blocks: view.blocks });
  } catch (err) {
    deps.log.warn({ job: 'channel-posts', channel: q.channel_id, card: q.card_id, err: (err as Error).message }, "could not update a card thread's parent; the next event updates it");
  }
}

/** Slack refused the channel: the subscription pauses, and its subscriber hears of it once. */
async function pause(deps: ChannelPostDeps, sweep: SlackSweep, q: QueuedPost, failure: SlackFailure): Promise<void> {
  await pauseRefused(
    sweep,
    {
      id: q.subscription_id,
      channelId: q.channel_id,
      subscriberSlackId: q.slack_user_id,
      job: 'channel-posts',
      mark: (trx) => pauseBoardSubscription(trx, { id: q.subscription_id, orgId: q.org_id }, failure.error, deps.clock()),
      view: boardSubscriptionPausedView(q.board_slug, q.channel_id, failure.error),
    },
    failure,
  );
}
