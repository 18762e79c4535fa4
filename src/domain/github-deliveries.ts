import { z } from 'zod';
import { sql } from 'kysely';
import type { Db } from '../db/connect.js';
import type { GithubLinkState } from '../db/schema.js';
import type { WorkflowStatus } from '../vocabulary.js';
import { moveCard } from './card-moves.js';
import type { Ctx, Principal } from './context.js';
import { AppError } from './errors.js';
import type { SubjectKey } from './event-subjects.js';
import type { GithubActor } from './github-actor.js';
import { pullRequestRefs, type RefMention } from './github-refs.js';
import { recordMoveRefusal } from './move-refusals.js';

/** The `pull_request` actions that can move a card; `edited` re-reads the links only. */
export const MOVING_ACTIONS = ['opened', 'reopened', 'ready_for_review', 'review_requested', 'closed'] as const;
export const LINKING_ACTIONS = [...MOVING_ACTIONS, 'edited'] as const;

/** One `pull_request` delivery, as the GitHub face reads it from GitHub's payload. */
export const pullRequestDeliveryInput = z.object({
  delivery_id: z.string().min(1).max(200),
  action: z.enum(LINKING_ACTIONS),
  repository: z.string().min(1).max(300),
  number: z.number().int().min(1),
  url: z.string().min(1).max(2000),
  title: z.string().max(10_000),
  body: z.string().max(1_000_000).nullable(),
  branch: z.string().max(1000),
  state: z.enum(['open', 'closed']),
  draft: z.boolean(),
  merged: z.boolean(),
  author_login: z.string().max(100).nullable(),
  updated_at: z.iso.datetime({ offset: true }),
});
export type PullRequestDelivery = z.infer<typeof pullRequestDeliveryInput>;

export const deliveryResultSchema = z.object({
  duplicate: z.boolean().describe('The delivery was applied before: nothing was done again'),
  linked: z.array(z.string()).describe('Refs of the cards linked'),
  moved: z.array(z.string()).describe('Refs of the cards moved'),
  refused: z.array(z.string()).describe('Refs of the cards whose move was refused (card.move_refused)'),
});
export type DeliveryResult = z.infer<typeof deliveryResultSchema>;

/** The link's state: merged, closed, draft or open. */
export function linkState(pr: Pick<PullRequestDelivery, 'state' | 'draft' | 'merged'>): GithubLinkState {
  if (pr.merged) return 'merged';
  if (pr.state === 'closed') return 'closed';
  return pr.draft ? 'draft' : 'open';
}

/**
 * Where a closing reference moves a card in `from`, never backwards (contract §12): opened
 * (not a draft) or reopened → in_progress from backlog; ready_for_review or review_requested
 * → in_review from backlog or in_progress; merged → done. Undefined: it stays.
 */
export function moveFor(pr: Pick<PullRequestDelivery, 'action' | 'draft' | 'merged'>, from: WorkflowStatus): WorkflowStatus | undefined {
  switch (pr.action) {
    case 'opened':
      return !pr.draft && from === 'backlog' ? 'in_progress' : undefined;
    case 'reopened':
      return from === 'backlog' ? 'in_progress' : undefined;
    case 'ready_for_review':
    case 'review_requested':
      return from === 'backlog' || from === 'in_progress' ? 'in_review' : undefined;
    case 'closed':
      return pr.merged && from !== 'done' ? 'done' : undefined;
    default:
      return undefined;
  }
}

interface NamedCard {
  id: string;
  ref: string;
  workflow_status: WorkflowStatus;
  closing: boolean;
}

/**
 * The cards of the caller's organization that the pull request names, locked for the rest of
 * the transaction in id order (two deliveries for one card take turns, and the second decides
 * on the state the first left; locking in one order, they never deadlock). A ref of another
 * organization's board is not found here: only GITHUB_ORG's cards move.
 *
 * ```sql
 * select c.id, b.ref_prefix, c.number, c.workflow_status from cards c join boards b on b.id = c.board_id
 * where c.org_id = $1 and b.org_id = $1 and (b.ref_prefix, c.number) in (($2, $3), …) order by c.id for update of c
 * ```
 */
async function namedCards(ctx: Ctx, mentions: readonly RefMention[]): Promise<NamedCard[]> {
  if (mentions.length === 0) return [];
  const rows = await ctx.db
    .selectFrom('cards as c')
    .innerJoin('boards as b', 'b.id', 'c.board_id')
    .select(['c.id', 'b.ref_prefix', 'c.number', 'c.workflow_status'])
    .where('c.org_id', '=', ctx.principal.orgId)
    .where('b.org_id', '=', ctx.principal.orgId)
    .where((eb) => eb.or(mentions.map((m) => eb.and([eb('b.ref_prefix', '=', m.prefix), eb('c.number', '=', m.number)]))))
    .orderBy('c.id')
    .forUpdate('c')
    .execute();
  const byRef = new Map(mentions.map((m) => [m.ref, m]));
  return rows.map((r) => {
    const ref = `${r.ref_prefix}-${r.number}`;
    return { id: r.id, ref, workflow_status: r.workflow_status, closing: byRef.get(ref)?.closing ?? false };
  });
}

/** The cards a delivery may change, for its events (read before and after it). */
export async function deliveryCards(ctx: Ctx, input: PullRequestDelivery): Promise<SubjectKey[]> {
  const cards = await namedCards(ctx, pullRequestRefs(input));
  return cards.map((c) => ({ type: 'card', id: c.id }));
}

/**
 * Applies one `pull_request` delivery in the caller's transaction (contract §12): records its
 * `X-GitHub-Delivery` (a delivery recorded before does nothing again), links the pull request
 * to every card of the organization it names (and unlinks cards it no longer names), and moves
 * the cards it closes, through `moveCard` as every face does. A link newer than the delivery
 * means the delivery is late: that card keeps its link and does not move. A move the gate
 * refuses (an agent's merge into a gated board) is recorded as `card.move_refused`, and the
 * rest of the delivery still applies.
 */
export async function applyPullRequest(ctx: Ctx, pr: PullRequestDelivery): Promise<DeliveryResult> {
  const result: DeliveryResult = { duplicate: false, linked: [], moved: [], refused: [] };
  const recorded = await ctx.db
    .insertInto('github_deliveries')
    .values({ delivery_id: pr.delivery_id, org_id: ctx.principal.orgId, event: `pull_request.${pr.action}`, received_at: ctx.clock().toISOString() })
    .onConflict((oc) => oc.column('delivery_id').doNothing())
    .returning('delivery_id')
    .executeTakeFirst();
  if (!recorded) return { ...result, duplicate: true };

  const cards = await namedCards(ctx, pullRequestRefs(pr));
  const state = linkState(pr);
  const updatedAt = new Date(pr.updated_at).toISOString();
  // Cards it no longer names lose the link, unless a later delivery linked them.
  let unlink = ctx.db
    .deleteFrom('github_links')
    .where('org_id', '=', ctx.principal.orgId)
    .where('repository', '=', pr.repository)
    .where('number', '=', pr.number)
    .where('updated_at', '<=', updatedAt);
  if (cards.length > 0) unlink = unlink.where('card_id', 'not in', cards.map((c) => c.id));
  await unlink.execute();

  for (const card of cards) {
    const fresh = await ctx.db
      .insertInto('github_links')
      .values({
        org_id: ctx.principal.orgId,
        card_id: card.id,
        repository: pr.repository,
        number: pr.number,
        url: pr.url,
        title: pr.title,
        state,
        author_login: pr.author_login,
        updated_at: updatedAt,
      })
      .onConflict((oc) =>
        oc
          .columns(['card_id', 'repository', 'number'])
          .doUpdateSet({ url: pr.url, title: pr.title, state, author_login: pr.author_login, updated_at: updatedAt })
          // GitHub does not deliver in order: an older state arriving late changes nothing.
          .where('github_links.updated_at', '<=', sql<string>`excluded.updated_at`),
      )
      .returning('card_id')
      .executeTakeFirst();
    if (!fresh) continue;
    result.linked.push(card.ref);
    if (!card.closing) continue;
    const to = moveFor(pr, card.workflow_status);
    if (to === undefined) continue;
    try {
      await moveCard(ctx, { id: card.id, workflow_status: to });
      result.moved.push(card.ref);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'gated_move_requires_human') throw err;
      await recordMoveRefusal(ctx, { type: 'card', id: card.id }, err.code, to);
      result.refused.push(card.ref);
    }
  }
  return result;
}

/** GitHub's users act through the integration with these scopes: they move cards, nothing else. */
const GITHUB_SCOPES = ['read', 'write'] as const;

/**
 * The caller a GitHub delivery acts as, in the organization named `orgSlug` (GITHUB_ORG):
 * the member whose `github_login` is the actor's login, else no member (events name the
 * login, with `member_id` null). Either way it acts with a member's role through the
 * integration (a pull request moves cards whoever opened it), as an agent when the actor is
 * one, with face `github`. Undefined when there is no such organization.
 *
 * ```sql
 * select o.id, m.id from organizations o left join members m
 *   on m.org_id = o.id and lower(m.github_login) = lower($2)
 * where o.slug = $1
 * ```
 */
export async function githubPrincipal(db: Db, orgSlug: string, actor: GithubActor): Promise<Principal | undefined> {
  const row = await db
    .selectFrom('organizations as o')
    .leftJoin('members as m', (j) => j.onRef('m.org_id', '=', 'o.id').on(sql`lower(m.github_login)`, '=', actor.login.toLowerCase()))
    .select(['o.id as org_id', 'm.id as member_id'])
    .where('o.slug', '=', orgSlug)
    .executeTakeFirst();
  if (!row) return undefined;
  const base = { orgId: row.org_id, tokenId: null, role: 'member' as const, scopes: GITHUB_SCOPES, agent: actor.agent, face: 'github' as const };
  return row.member_id ? { ...base, memberId: row.member_id } : { ...base, memberId: '', externalName: actor.login };
}

/** How long a delivery's id is kept: GitHub redelivers on request, for days, not months. */
export const DELIVERY_DAYS = 30;

/** Forgets deliveries older than DELIVERY_DAYS; returns how many. */
export async function pruneGithubDeliveries(db: Db, now: Date): Promise<number> {
  const before = new Date(now.getTime() - DELIVERY_DAYS * 86_400_000).toISOString();
  const result = await db.deleteFrom('github_deliveries').where('received_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
