import { findBoard } from './boards.js';
import { findCard } from './card-refs.js';
import { getCard } from './cards.js';
import type { Ctx } from './context.js';
import { commentIdsOfCard, getComment } from './comments.js';
import { getCriterion } from './criteria.js';
import { unlessMissing } from './errors.js';
import { QueryTemplate } from '../db/query-template.js';
import { getMember } from './members.js';
import { getMilestoneStatus } from './milestones.js';
import { loadSnippet, presentSnippet } from './snippets/rows.js';
import { callerCalendar } from './todo-due.js';
import { presentTodo, todoColumns } from './todos.js';
import { readToken } from './tokens.js';

/** What an event can be about (its `subject.type`). */
export const SUBJECT_TYPES = ['card', 'criterion', 'comment', 'todo', 'milestone', 'snippet', 'board', 'member', 'token', 'webhook'] as const;
export type SubjectType = (typeof SUBJECT_TYPES)[number];

/** A thing a write may change, by id (or, before the write, by the ref or slug its operation takes). */
export interface SubjectKey {
  type: SubjectType;
  id: string;
}

/**
 * Who may read events about a thing: `org` every member with read; `owner` only `memberId`
 * (a todo's owner, a private snippet's author); `admins` owners and admins, and `memberId`
 * itself (a token's member, a member record's member). Contract §10, Details.
 */
export type Audience = 'org' | 'owner' | 'admins';

/** A thing as its own read operation answers it, with what an event about it records beside. */
export interface Snapshot {
  data: Record<string, unknown>;
  /** The card's ref for cards, criteria and comments, the milestone's ref for milestones; else null. */
  ref: string | null;
  /** The card it belongs to (a card itself, a criterion's, a mirrored todo's), for `subject=<card>`. */
  cardId: string | null;
  audience: Audience;
  memberId: string | null;
}

type Reader = (ctx: Ctx, id: string) => Promise<Snapshot | undefined>;

async function cardRef(ctx: Ctx, cardId: string): Promise<string | null> {
  const row = await ctx.db
    .selectFrom('cards as c')
    .innerJoin('boards as b', 'b.id', 'c.board_id')
    .select(['b.ref_prefix', 'c.number'])
    .where('c.org_id', '=', ctx.principal.orgId)
    .where('c.id', '=', cardId)
    .executeTakeFirst();
  return row ? `${row.ref_prefix}-${row.number}` : null;
}

const orgWide = (data: object, ref: string | null = null, cardId: string | null = null): Snapshot => ({
  data: data as Record<string, unknown>,
  ref,
  cardId,
  audience: 'org',
  memberId: null,
});

const cardSnapshot = (card: Awaited<ReturnType<typeof getCard>>): Snapshot => orgWide(card, card.ref, card.id);

/** Types whose snapshot is their read operation's answer as is: an operation answering one gives its "after" without a read. */
export type AnsweredType = 'card' | 'todo' | 'snippet';

/** What an event about a todo records beside it: every todo is its owner's alone. */
const todoSnapshot = (data: Record<string, unknown>, memberId: string): Snapshot => ({
  data,
  ref: null,
  cardId: typeof data.card_id === 'string' ? data.card_id : null,
  audience: 'owner',
  memberId,
});

/** What an event about a snippet records beside it: a private one is its author's alone. */
const snippetSnapshot = (data: Record<string, unknown>, createdBy: string): Snapshot =>
  data.visibility === 'private' ? { data, ref: null, cardId: null, audience: 'owner', memberId: createdBy } : orgWide(data);

/**
 * The snapshot of a thing from an answer that is the thing as its reader reads it: a card as
 * `getCard` reads it (`loadCard`), a todo as `presentTodo` answers it to its owner, a snippet as
 * `presentSnippet` does, for the snippet the caller has just made. The owner is the caller: todo
 * writes change only the caller's own todos, and only a new snippet is surely the caller's (an
 * edit by another member may make a team snippet private: its owner is then its author, whom
 * the answer does not name, so `updateSnippet` reads it).
 */
export function snapshotOfAnswer(ctx: Ctx, type: AnsweredType, answer: Record<string, unknown>): Snapshot {
  switch (type) {
    case 'card':
      return cardSnapshot(answer as unknown as Awaited<ReturnType<typeof getCard>>);
    case 'todo':
      return todoSnapshot(answer, ctx.principal.memberId);
    case 'snippet':
      return snippetSnapshot(answer, ctx.principal.memberId);
  }
}

/** A todo of the caller's organization, or the caller's own personal one: built and compiled once (`QueryTemplate`). */
const todoOfEvent = new QueryTemplate('todoOfEvent', (db, _shape: 'todo', v: { id: string; org_id: string; member_id: string }) =>
  db
    .selectFrom('todos')
    .select([...todoColumns, 'member_id'])
    .where('id', '=', v.id)
    .where((eb) => eb.or([eb('org_id', '=', v.org_id), eb.and([eb('org_id', 'is', null), eb('member_id', '=', v.member_id)])])),
);

const readers: Record<SubjectType, Reader | undefined> = {
  async card(ctx, key) {
    const card = await unlessMissing(getCard(ctx, { id: key }));
    return card && cardSnapshot(card);
  },
  async criterion(ctx, id) {
    const criterion = await unlessMissing(getCriterion(ctx.db, ctx.principal.orgId, id));
    return criterion && orgWide(criterion, await cardRef(ctx, criterion.card_id), criterion.card_id);
  },
  async todo(ctx, id) {
    // Every todo is its owner's alone (a mirrored one too), whoever changed it.
    const { orgId, memberId } = ctx.principal;
    const row = await todoOfEvent.executeTakeFirst(ctx.db, 'todo', { id, org_id: orgId, member_id: memberId });
    return row && todoSnapshot(presentTodo(row, await callerCalendar(ctx)) as unknown as Record<string, unknown>, row.member_id);
  },
  async milestone(ctx, id) {
    const milestone = await unlessMissing(getMilestoneStatus(ctx, { ref: id }));
    return milestone && orgWide(milestone, milestone.ref);
  },
  async snippet(ctx, id) {
    const row = await unlessMissing(loadSnippet(ctx, id));
    return row && snippetSnapshot(presentSnippet(ctx, row) as unknown as Record<string, unknown>, row.created_by);
  },
  async board(ctx, id) {
    const board = await unlessMissing(findBoard(ctx.db, ctx.principal.orgId, id));
    return board && orgWide(board);
  },
  async member(ctx, id) {
    const member = await unlessMissing(getMember(ctx.db, ctx.principal.orgId, id));
    return member && { data: member, ref: null, cardId: null, audience: 'admins', memberId: member.id };
  },
  async token(ctx, id) {
    const token = await readToken(ctx.db, ctx.principal.orgId, id);
    return token && { data: token, ref: null, cardId: null, audience: 'admins', memberId: token.member_id };
  },
  async comment(ctx, id) {
    const comment = await unlessMissing(getComment(ctx.db, ctx.principal.orgId, id));
    return comment && orgWide(comment, await cardRef(ctx, comment.card_id), comment.card_id);
  },
  // Not in this build yet: webhooks (their own stream of work).
  webhook: undefined,
};

/** The thing as it is now in `ctx.db` (inside a write: as the write has left it so far), or undefined. */
export async function snapshot(ctx: Ctx, key: SubjectKey): Promise<Snapshot | undefined> {
  const read = readers[key.type];
  if (!read) throw new Error(`no reader for ${key.type} events`);
  return read(ctx, key.id);
}

/** The criteria of a card (id or ref), which deleting it deletes: each records its own event. */
export async function criteriaOfCard(ctx: Ctx, cardKey: string): Promise<SubjectKey[]> {
  const card = await unlessMissing(findCard(ctx.db, ctx.principal.orgId, cardKey));
  if (!card) return [];
  const rows = await ctx.db.selectFrom('criteria').select('id').where('org_id', '=', ctx.principal.orgId).where('card_id', '=', card.id).orderBy('position').execute();
  return rows.map((r) => ({ type: 'criterion', id: r.id }));
}

/** The comments of a card (id or ref), which deleting it deletes: each records its own event. */
export async function commentsOfCard(ctx: Ctx, cardKey: string): Promise<SubjectKey[]> {
  const card = await unlessMissing(findCard(ctx.db, ctx.principal.orgId, cardKey));
  if (!card) return [];
  return (await commentIdsOfCard(ctx.db, ctx.principal.orgId, card.id)).map((id) => ({ type: 'comment', id }));
}

/** What else one change of this thing changes with it: a todo and the criterion it mirrors follow each other. */
export function linkedTo(key: SubjectKey, thing: Snapshot): SubjectKey[] {
  const data = thing.data;
  if (key.type === 'todo' && typeof data.criterion_id === 'string') return [{ type: 'criterion', id: data.criterion_id }];
  if (key.type === 'criterion' && typeof data.todo_id === 'string') return [{ type: 'todo', id: data.todo_id }];
  return [];
}
