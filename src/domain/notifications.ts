import type { Insertable, Kysely } from 'kysely';
import type { Database, NotificationsTable } from '../db/schema.js';
import type { EventConsumer } from './event-consumers.js';
import { eventId, type EventRow } from './events.js';
import { newId } from './ids.js';
import { mentionedIds, mentionsAsNames } from './mentions.js';
import { notificationSettings, type NotificationKind } from './notification-kinds.js';
import { toIso } from './time.js';

/**
 * Personal notifications (contract §11), made from committed events by the `notifications`
 * event consumer, in the transaction that moves its cursor:
 *
 * - `assigned`: a card created, updated or moved with you newly among its assignees;
 * - `mentioned`: a comment created or edited whose body newly has `@mem_<you>`, or a card
 *   created or changed whose description newly has it (you were not in the one before);
 * - `card_activity`: a card you are assigned moved, or commented on;
 * - `agent_requests`: an agent's refused move to done (any face) on a card you are assigned,
 *   nobody assigned: the board's creator.
 *
 * Never to the member who made the change (an agent's request does reach the human it acts
 * for: a refused move changed nothing, and approving it is theirs), never to someone outside
 * the event's organization or who may not see the event (only events every member sees make
 * notifications: a personal todo's never do), and never of a kind the member turned off.
 */

type Draft = { memberId: string; kind: NotificationKind; detail: string };

interface CardFacts {
  title: string;
  ref: string | null;
  assignees: string[];
  boardId: string | null;
}

const EXCERPT_MAX = 200;

/** The member ids a stored comment body or card description mentions (`@mem_…`), each once. */
export function mentionsIn(text: unknown): Set<string> {
  return new Set(typeof text === 'string' ? mentionedIds(text) : []);
}

/** The members a written text newly mentions: in it now and not in what it was before the event. */
function newMentions(row: EventRow, field: string, created: boolean): string[] {
  const before = created ? new Set<string>() : mentionsIn(changeOf(row, field)?.[0]);
  const now = created ? dataOf(row)[field] : changeOf(row, field)?.[1];
  return [...mentionsIn(now)].filter((m) => !before.has(m));
}

/** The names of the members each organization's texts mention, by organization and id. */
type MentionNames = Map<string, Map<string, string>>;

/** A comment's or description's first words, its mentions as the members' names (of the event's organization only). */
function excerpt(text: unknown, names: ReadonlyMap<string, string> = new Map()): string {
  const flat = typeof text === 'string' ? mentionsAsNames(text, names).replace(/\s+/g, ' ').trim() : '';
  const chars = [...flat];
  return chars.length > EXCERPT_MAX ? `${chars.slice(0, EXCERPT_MAX - 1).join('')}…` : flat;
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
const statusWords = (status: unknown) => String(status ?? '').replace(/_/g, ' ');

function dataOf(row: EventRow): Record<string, unknown> {
  return row.data !== null && typeof row.data === 'object' ? (row.data as Record<string, unknown>) : {};
}

function changeOf(row: EventRow, field: string): [unknown, unknown] | undefined {
  const changes = row.changes as Record<string, unknown> | null;
  const change = changes?.[field];
  return Array.isArray(change) && change.length === 2 ? [change[0], change[1]] : undefined;
}

/** The card facts of each card a comment event is about, read once per batch. */
async function commentCards(trx: Kysely<Database>, rows: readonly EventRow[]): Promise<Map<string, CardFacts>> {
  const ids = [...new Set(rows.filter((r) => r.type.startsWith('comment.') && r.card_id).map((r) => r.card_id!))];
  const facts = new Map<string, CardFacts>();
  if (ids.length === 0) return facts;
  const cards = await trx
    .selectFrom('cards as c')
    .innerJoin('boards as b', 'b.id', 'c.board_id')
    .select(['c.id', 'c.title', 'c.board_id', 'b.ref_prefix', 'c.number'])
    .where('c.id', 'in', ids)
    .execute();
  const assignees = await trx.selectFrom('card_assignees').select(['card_id', 'member_id']).where('card_id', 'in', ids).orderBy('position').execute();
  for (const c of cards) facts.set(c.id, { title: c.title, ref: `${c.ref_prefix}-${c.number}`, boardId: c.board_id, assignees: [] });
  for (const a of assignees) facts.get(a.card_id)?.assignees.push(a.member_id);
  return facts;
}

/**
 * The names of the members mentioned in the texts a batch's notifications quote (comments,
 * and descriptions that newly mention someone), read once, by organization.
 */
async function mentionNames(trx: Kysely<Database>, rows: readonly EventRow[]): Promise<MentionNames> {
  const ids = new Set<string>();
  for (const row of rows) {
    const data = dataOf(row);
    const quoted = row.type === 'comment.created' || row.type === 'comment.updated' ? data.body : newMentions(row, 'description', row.type === 'card.created').length > 0 ? data.description : undefined;
    for (const id of mentionsIn(quoted)) ids.add(id);
  }
  const names: MentionNames = new Map();
  if (ids.size === 0) return names;
  const members = await trx.selectFrom('members').select(['id', 'org_id', 'name']).where('id', 'in', [...ids]).execute();
  for (const m of members) names.set(m.org_id, (names.get(m.org_id) ?? new Map()).set(m.id, m.name));
  return names;
}

/** Who made each board an agent's refusal with nobody assigned is about. */
async function boardCreators(trx: Kysely<Database>, boardIds: readonly string[]): Promise<Map<string, string>> {
  if (boardIds.length === 0) return new Map();
  const rows = await trx.selectFrom('boards').select(['id', 'created_by']).where('id', 'in', [...new Set(boardIds)]).execute();
  return new Map(rows.flatMap((r) => (r.created_by ? [[r.id, r.created_by] as const] : [])));
}

/** Whether a refused move is an agent's ask for a human: a move to done refused to an agent (or GitHub). */
export function isAgentRequest(row: Pick<EventRow, 'type' | 'actor_agent' | 'face' | 'data'>): boolean {
  if (row.type !== 'card.move_refused') return false;
  const refusal = (row.data as { refusal?: { workflow_status?: unknown } } | null)?.refusal;
  return refusal?.workflow_status === 'done' && (row.actor_agent || row.face === 'github');
}

/** What one event asks to tell whom (before the never-rules and settings are applied). */
function draftsOf(row: EventRow, cards: Map<string, CardFacts>, creators: Map<string, string>, names: MentionNames): { card: CardFacts; drafts: Draft[] } | undefined {
  const data = dataOf(row);
  const orgNames = names.get(row.org_id);
  if (row.type === 'card.created' || row.type === 'card.updated' || row.type === 'card.moved' || row.type === 'card.move_refused') {
    const card: CardFacts = { title: String(data.title ?? ''), ref: row.subject_ref, assignees: strings(data.assignee_ids), boardId: typeof data.board_id === 'string' ? data.board_id : null };
    if (row.type === 'card.move_refused') {
      if (!isAgentRequest(row)) return undefined;
      const to = card.assignees.length > 0 ? card.assignees : [creators.get(card.boardId ?? '')].filter((m): m is string => m !== undefined);
      const code = (data.refusal as { code?: unknown } | undefined)?.code;
      return { card, drafts: to.map((memberId) => ({ memberId, kind: 'agent_requests', detail: `tried to move it to done and was refused (${String(code ?? 'refused')}): a human may` })) };
    }
    const assignees = changeOf(row, 'assignee_ids');
    const before = new Set(row.type === 'card.created' ? [] : assignees ? strings(assignees[0]) : card.assignees);
    const newly = card.assignees.filter((m) => !before.has(m));
    const drafts: Draft[] = newly.map((memberId) => ({ memberId, kind: 'assigned', detail: 'assigned you' }));
    const mentioned = newMentions(row, 'description', row.type === 'card.created');
    if (mentioned.length > 0) {
      const said = excerpt(data.description, orgNames);
      for (const memberId of mentioned) drafts.push({ memberId, kind: 'mentioned', detail: `mentioned you in the description: ${said}` });
    }
    if (row.type === 'card.moved') {
      const detail = `moved it to ${statusWords(data.workflow_status)}`;
      for (const memberId of card.assignees) if (!newly.includes(memberId)) drafts.push({ memberId, kind: 'card_activity', detail });
    }
    return { card, drafts };
  }
  if (row.type === 'comment.created' || row.type === 'comment.updated') {
    const cardId = row.card_id ?? (typeof data.card_id === 'string' ? data.card_id : undefined);
    const card = cardId ? cards.get(cardId) : undefined;
    if (!card) return undefined;
    const mentioned = newMentions(row, 'body', row.type === 'comment.created');
    const said = excerpt(data.body, orgNames);
    const drafts: Draft[] = mentioned.map((memberId) => ({ memberId, kind: 'mentioned', detail: `mentioned you: ${said}` }));
    if (row.type === 'comment.created') {
      for (const memberId of card.assignees) if (!mentioned.includes(memberId)) drafts.push({ memberId, kind: 'card_activity', detail: `commented: ${said}` });
    }
    return { card, drafts };
  }
  return undefined;
}

/**
 * The notifications a batch of events makes, stored once each (a batch consumed again makes
 * none twice: unique per member, kind and event).
 */
export async function storeNotifications(trx: Kysely<Database>, rows: readonly EventRow[]): Promise<number> {
  // Only what every member of the organization may see: a personal todo's events, tokens' and members' never notify.
  const seen = rows.filter((r) => r.audience === 'org');
  if (seen.length === 0) return 0;
  const cards = await commentCards(trx, seen);
  const refusedBoards = seen.filter(isAgentRequest).map((r) => dataOf(r).board_id).filter((b): b is string => typeof b === 'string');
  const creators = await boardCreators(trx, refusedBoards);
  const names = await mentionNames(trx, seen);
  const planned: { row: EventRow; card: CardFacts; draft: Draft }[] = [];
  for (const row of seen) {
    const made = draftsOf(row, cards, creators, names);
    for (const draft of made?.drafts ?? []) {
      // Never the one who made the change; an agent's refused request goes to the human it acts for too.
      if (draft.memberId === row.actor_member_id && draft.kind !== 'agent_requests') continue;
      planned.push({ row, card: made!.card, draft });
    }
  }
  if (planned.length === 0) return 0;
  const members = await trx
    .selectFrom('members')
    .select(['id', 'org_id', 'notifications'])
    .where('id', 'in', [...new Set(planned.map((p) => p.draft.memberId))])
    .execute();
  const byId = new Map(members.map((m) => [m.id, m]));
  const values: Insertable<NotificationsTable>[] = [];
  const once = new Set<string>();
  for (const { row, card, draft } of planned) {
    const member = byId.get(draft.memberId);
    // A mention of someone in another organization (or of nobody) tells nobody.
    if (!member || member.org_id !== row.org_id) continue;
    if (!notificationSettings(member.notifications)[draft.kind]) continue;
    const key = `${draft.memberId} ${draft.kind} ${row.seq}`;
    if (once.has(key)) continue;
    once.add(key);
    values.push({
      id: newId('ntf'),
      org_id: row.org_id,
      member_id: draft.memberId,
      kind: draft.kind,
      event_id: eventId(row.seq),
      card_id: row.card_id,
      card_ref: card.ref,
      card_title: card.title,
      actor_name: row.actor_agent ? `${row.actor_name} (agent)` : row.actor_name,
      detail: draft.detail,
      created_at: toIso(row.created_at),
    });
  }
  if (values.length === 0) return 0;
  const inserted = await trx
    .insertInto('notifications')
    .values(values)
    .onConflict((oc) => oc.columns(['member_id', 'kind', 'event_id']).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0);
}

/** The consumer that makes them. */
export const notificationsConsumer: EventConsumer = {
  name: 'notifications',
  consume: async (trx, rows) => {
    await storeNotifications(trx, rows);
  },
};
