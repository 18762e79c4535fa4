import { z } from 'zod';
import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { findCard, parseCardRef } from './card-refs.js';
import type { Ctx, Principal } from './context.js';
import { AppError, notFound } from './errors.js';
import { EVENT_TYPES, eventColumns, presentEvent, seqOf, type Event, type EventRow } from './events.js';
import { isoDateTime, pageQuery, queryBoolean } from './fields.js';
import { hasIdPrefix } from './ids.js';
import { fetchLimit, pageLimit, readCursor, toPage, type Page } from './pagination.js';
import { isAdmin } from './permissions.js';
import { pgTimestamp } from './time.js';

/** A `type` filter's parts: each a type, or a prefix of types ending in `.` (`card.`). */
function typeParts(text: string): string[] {
  return text.split(',').map((s) => s.trim());
}

const knownType = (part: string) => (part.endsWith('.') ? EVENT_TYPES.some((t) => t.startsWith(part)) : (EVENT_TYPES as readonly string[]).includes(part));

export const eventFilters = {
  type: z
    .string()
    .max(1000)
    .refine((s) => typeParts(s).every(knownType), 'must be event types or prefixes ending in "." (card.,comment.created), comma-separated')
    .optional()
    .describe('Event types or prefixes ending in "." such as card., comma-separated'),
  actor: z.string().max(64).optional().describe('Only changes by this member (id)'),
  agent: queryBoolean.optional().describe('Only changes made with agent tokens (true) or without (false)'),
  since: isoDateTime.optional().describe('Only events at or after this instant'),
};

export const listEventsInput = z.object({
  ...pageQuery,
  ...eventFilters,
  subject: z.string().max(64).optional().describe("Only this thing's events (an id), or a card's (id or ref) with its criteria, comments and mirrored todos"),
});
export type EventFilter = Omit<z.infer<typeof listEventsInput>, 'cursor' | 'limit'>;

export const cardActivityInput = z.object({
  id: z.string().trim().min(1).max(64).describe('Card id (crd_…) or ref (ENG-42)'),
  ...pageQuery,
  ...eventFilters,
});

/** Who may read an event (contract §10): the audience of its row, for this caller. */
export function visibleTo(principal: Principal) {
  return (eb: ExpressionBuilder<Database, 'events'>) => {
    const mine = eb('events.member_id', '=', principal.memberId);
    return eb.and([
      eb('events.org_id', '=', principal.orgId),
      isAdmin(principal) ? eb.or([eb('events.audience', '<>', 'owner'), mine]) : eb.or([eb('events.audience', '=', 'org'), mine]),
    ]);
  };
}

/**
 * The card a `subject` names, by id or ref, also once deleted (its ref is found in its
 * events); undefined when it names no card.
 */
async function cardIdOf(db: Kysely<Database>, orgId: string, key: string): Promise<string | undefined> {
  if (hasIdPrefix(key, 'crd')) return key;
  const ref = parseCardRef(key);
  if (!ref) return undefined;
  try {
    return (await findCard(db, orgId, key)).id;
  } catch (err) {
    if (!(err instanceof AppError) || err.status !== 404) throw err;
  }
  const past = await db
    .selectFrom('events')
    .select('subject_id')
    .where('org_id', '=', orgId)
    .where('subject_type', '=', 'card')
    .where('subject_ref', '=', `${ref.prefix}-${ref.number}`)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return past?.subject_id;
}

/** A filter with its card found: what lists (SQL) and streams (in memory) select by. */
export interface ResolvedFilter extends EventFilter {
  /** The card `subject` names, when it names one: its events and its parts'. */
  cardId: string | undefined;
  types: string[] | undefined;
}

export async function resolveFilter(ctx: Ctx, filter: EventFilter): Promise<ResolvedFilter> {
  const cardId = filter.subject === undefined ? undefined : await cardIdOf(ctx.db, ctx.principal.orgId, filter.subject);
  return { ...filter, cardId, types: filter.type === undefined ? undefined : typeParts(filter.type) };
}

/** The where-clause of a filter, as the caller may see (the same choice as `matches`). */
export function eventConditions(principal: Principal, f: ResolvedFilter) {
  return (eb: ExpressionBuilder<Database, 'events'>) => {
    const all = [visibleTo(principal)(eb)];
    if (f.subject !== undefined) all.push(f.cardId !== undefined ? eb('events.card_id', '=', f.cardId) : eb('events.subject_id', '=', f.subject));
    if (f.types) all.push(eb.or(f.types.map((t) => (t.endsWith('.') ? eb('events.type', 'like', `${t.replace(/[\\%_]/g, '\\$&')}%`) : eb('events.type', '=', t)))));
    if (f.actor !== undefined) all.push(eb('events.actor_member_id', '=', f.actor));
    if (f.agent !== undefined) all.push(eb('events.actor_agent', '=', f.agent));
    if (f.since !== undefined) all.push(eb('events.created_at', '>=', f.since));
    return eb.and(all);
  };
}

type MatchedRow = Pick<EventRow, 'org_id' | 'audience' | 'member_id' | 'card_id' | 'subject_id' | 'type' | 'actor_member_id' | 'actor_agent' | 'created_at'>;

/** Whether the caller sees the event and the filter selects it: `eventConditions`, for rows in memory (streams). */
export function matches(row: MatchedRow, principal: Principal, f: ResolvedFilter): boolean {
  if (row.org_id !== principal.orgId) return false;
  const mine = row.member_id === principal.memberId;
  if (!(mine || row.audience === 'org' || (row.audience === 'admins' && isAdmin(principal)))) return false;
  if (f.subject !== undefined && (f.cardId !== undefined ? row.card_id !== f.cardId : row.subject_id !== f.subject)) return false;
  if (f.types && !f.types.some((t) => (t.endsWith('.') ? row.type.startsWith(t) : row.type === t))) return false;
  if (f.actor !== undefined && row.actor_member_id !== f.actor) return false;
  if (f.agent !== undefined && row.actor_agent !== f.agent) return false;
  return f.since === undefined || pgTimestamp(row.created_at).getTime() >= new Date(f.since).getTime();
}

/** Events newest first, filtered, as the caller may see them (contract §10). */
export async function listEvents(ctx: Ctx, input: z.infer<typeof listEventsInput>): Promise<Page<Event>> {
  const { cursor, limit: _limit, ...filter } = input;
  const scope = ['events', ctx.principal.orgId, ctx.principal.memberId, filter];
  const at = readCursor(cursor, scope);
  const atSeq = at === undefined ? undefined : seqOf(String(at.key));
  if (at !== undefined && atSeq === undefined) throw new AppError('invalid_cursor', 400, 'That cursor is not valid for this list; start again without it.');
  const limit = pageLimit(input);
  let q = ctx.db.selectFrom('events').select(eventColumns).where(eventConditions(ctx.principal, await resolveFilter(ctx, filter)));
  if (atSeq !== undefined) q = q.where('events.seq', '<', sql<string>`cast(${atSeq} as bigint)`);
  const rows = await q.orderBy('events.seq', 'desc').limit(fetchLimit(limit)).execute();
  return toPage(rows, limit, (r) => ({ key: `evt_${r.seq}`, id: '' }), presentEvent, scope);
}

/** A card's events (its criteria's, comments' and mirrored todos' too), newest first: `listEvents` for one card. */
export async function getCardActivity(ctx: Ctx, input: z.infer<typeof cardActivityInput>): Promise<Page<Event>> {
  const { id, ...rest } = input;
  const cardId = await cardIdOf(ctx.db, ctx.principal.orgId, id);
  if (cardId === undefined) throw notFound('card', id);
  return listEvents(ctx, { ...rest, subject: cardId });
}
