import { z } from 'zod';
import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import { QueryTemplate } from '../db/query-template.js';
import { commitWithNextStatement } from '../db/bound-transaction.js';
import { DELIVERIES_QUEUED, EVENTS_CHANNEL } from '../db/event-notifications.js';
import type { EventsWritten } from '../db/event-announcer.js';
import type { Database, EventsTable } from '../db/schema.js';
import { FACES, type Ctx } from './context.js';
import { SUBJECT_TYPES, type Snapshot, type SubjectKey } from './event-subjects.js';
import { toIso } from './time.js';
import { storeKeyRecord, type KeyRecord } from './idempotency.js';
import { queueDeliveriesOfWritten } from './webhook-outbox.js';

/** Every type of event (contract §10). */
export const EVENT_TYPES = [
  'card.created',
  'card.updated',
  'card.moved',
  'card.deleted',
  'card.move_refused',
  'criterion.created',
  'criterion.updated',
  'criterion.deleted',
  'comment.created',
  'comment.updated',
  'comment.deleted',
  'todo.created',
  'todo.updated',
  'todo.completed',
  'todo.reopened',
  'todo.deleted',
  'milestone.created',
  'milestone.updated',
  'milestone.deleted',
  'snippet.created',
  'snippet.updated',
  'snippet.deleted',
  'snippet.link_rotated',
  'board.created',
  'board.updated',
  'board.deleted',
  'member.created',
  'member.updated',
  'member.removed',
  'token.created',
  'token.revoked',
  'webhook.disabled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const eventSchema = z.object({
  id: z.string().describe('evt_…; events are ordered by it'),
  type: z.enum(EVENT_TYPES),
  created_at: z.string(),
  actor: z.object({
    member_id: z.string().nullable().describe('Null for a change no member made'),
    name: z.string(),
    agent: z.boolean().describe('Made with an agent token'),
    face: z.enum(FACES).describe('How the change arrived: web, slack, mcp, cli, api, job or github'),
  }),
  subject: z.object({
    type: z.enum(SUBJECT_TYPES),
    id: z.string(),
    ref: z.string().nullable().describe("The card's ref for cards, criteria and comments; the milestone's ref for milestones; else null"),
  }),
  changes: z.record(z.string(), z.array(z.unknown())).describe('Each changed field as [before, after]; {} on creation and deletion'),
  data: z.record(z.string(), z.unknown()).nullable().describe('The subject as its own read operation returns it after the change; null once deleted'),
});
export type Event = z.infer<typeof eventSchema>;

/** One change to record: what it is about, as it was before (deleted) or is after the write. */
export interface EventDraft {
  type: EventType;
  subject: SubjectKey;
  /** The subject after the change, or before it when it is gone. */
  snapshot: Snapshot;
  changes: Record<string, [unknown, unknown]>;
  data: Record<string, unknown> | null;
}

const EVENT_ID = /^evt_([1-9][0-9]{0,17})$/;

export const eventId = (seq: string | number): string => `evt_${seq}`;

/** The `seq` of an event id, or undefined when it is none of ours. */
export function seqOf(id: string): string | undefined {
  return EVENT_ID.exec(id)?.[1];
}

/** The actor's name: from the principal's profile when read with it, else from the members table. */
async function actorName(ctx: Ctx): Promise<string> {
  if (ctx.principal.externalName !== undefined) return ctx.principal.externalName;
  if (ctx.principal.profile) return ctx.principal.profile.member.name;
  const row = await ctx.db.selectFrom('members').select('name').where('id', '=', ctx.principal.memberId).executeTakeFirst();
  return row?.name ?? '';
}

/** One event row as written (its `seq` and `xid` come from the database). */
export type EventValues = Omit<Insertable<EventsTable>, 'seq' | 'changes' | 'data'> & {
  changes: Record<string, unknown>;
  data: Record<string, unknown> | null;
};

/**
 * Records the write's events in its own transaction (`ctx.db`), in one statement with what
 * goes with them: the webhooks' deliveries, the idempotency record of the write (`key`, when
 * it has one) and the NOTIFY that tells every process (delivered on commit only). `commits`:
 * the statement is the transaction's last, and COMMIT goes out with it.
 */
export async function insertEvents(ctx: Ctx, drafts: readonly EventDraft[], key?: KeyRecord, commits?: boolean): Promise<void> {
  if (drafts.length === 0) {
    if (!key) return;
    if (commits) commitWithNextStatement(ctx.db);
    await keyAlone.execute(ctx.db, null, key);
    return;
  }
  const p = ctx.principal;
  const name = await actorName(ctx);
  const createdAt = ctx.clock().toISOString();
  await writeEvents(
    ctx.db,
    drafts.map((d) => ({
      org_id: p.orgId,
      type: d.type,
      created_at: createdAt,
      actor_member_id: p.externalName !== undefined ? null : p.memberId,
      actor_name: name,
      actor_agent: p.agent,
      face: p.face ?? 'api',
      subject_type: d.subject.type,
      subject_id: d.subject.id,
      subject_ref: d.snapshot.ref,
      card_id: d.snapshot.cardId,
      audience: d.snapshot.audience,
      member_id: d.snapshot.memberId,
      changes: d.changes,
      data: d.data,
    })),
    { key, written: ctx.eventsWritten, orgWebhooks: ctx.orgWebhooks, commits },
  );
}

/** The columns of an event row as written, in order (the statement's VALUES and its recordset). */
const WRITTEN = [
  ['org_id', 'text'],
  ['type', 'text'],
  ['created_at', 'timestamptz'],
  ['actor_member_id', 'text'],
  ['actor_name', 'text'],
  ['actor_agent', 'boolean'],
  ['face', 'text'],
  ['subject_type', 'text'],
  ['subject_id', 'text'],
  ['subject_ref', 'text'],
  ['card_id', 'text'],
  ['audience', 'text'],
  ['member_id', 'text'],
  ['changes', 'jsonb'],
  ['data', 'jsonb'],
] as const satisfies readonly (readonly [keyof EventValues, string])[];

type WrittenColumn = (typeof WRITTEN)[number][0];
/** The statement's values: one row's columns (JSON as text), or every row as one JSON array; the key record's. */
type EventSlots = { [C in WrittenColumn as `e_${C}`]?: string | boolean | null } & {
  rows?: string;
  token_id?: string;
  operation?: string;
  key?: string;
  request_hash?: string;
  status?: number;
  body?: string | null;
};

const columnList = sql.raw(WRITTEN.map(([c]) => c).join(', '));

/**
 * True when the CTE `stored` (`storeKeyRecord`) stored the key's record, else the statement
 * fails as a serialization failure (`key_stored_meanwhile()`, migration 0029): a live record
 * was committed meanwhile, and the write runs again to replay it.
 */
const STORED_OR_REFUSED = sql<true>`case when exists (select from stored) then true else key_stored_meanwhile() end`;

/**
 * The events statement of each shape, built and compiled once (`QueryTemplate`): `one` row
 * (a plain VALUES, as most writes record) or several (`jsonb_to_recordset` of one parameter,
 * in order); with the webhooks' deliveries (`queue`: only when a row is one an organization
 * sees, since a personal todo's event never goes to a webhook, and the organization may have a
 * webhook, `Ctx.orgWebhooks`), the key record (`key`) and the NOTIFY (`notify`). Each clause
 * left out is work Postgres does not do: an insert that adds no row still opens its table and
 * indexes.
 */
type EventsShape = `${'one' | 'many'} ${'queue' | '-'} ${'key' | '-'} ${'notify' | '-'}`;

const eventsStatement = new QueryTemplate('writeEvents', (_db, shape: EventsShape, v: EventSlots) => {
  const [rows, queue, key, notify] = shape.split(' ');
  const written =
    rows === 'one'
      ? sql`insert into events (${columnList}) values (${sql.join(WRITTEN.map(([c, type]) => sql`cast(${v[`e_${c}`]} as ${sql.raw(type)})`))})`
      : sql`insert into events (${columnList})
      select ${sql.raw(WRITTEN.map(([c]) => `r.${c}`).join(', '))}
      from jsonb_to_recordset(cast(${v.rows} as jsonb)) as r(${sql.raw(WRITTEN.map(([c, type]) => `${c} ${type}`).join(', '))}, n int)
      order by r.n`;
  const stored =
    key === 'key'
      ? sql`, stored as (${storeKeyRecord({ token_id: v.token_id!, operation: v.operation!, key: v.key!, request_hash: v.request_hash!, status: v.status!, body: v.body! })})`
      : sql``;
  const queued = queue === 'queue' ? sql`, queued as (${queueDeliveriesOfWritten})` : sql``;
  const deliveries = queue === 'queue' ? sql`exists (select from queued)` : sql`false`;
  const notified =
    notify === 'notify' ? sql`, pg_notify(${EVENTS_CHANNEL}, max(seq)::text || case when ${deliveries} then ${DELIVERIES_QUEUED} else '' end)` : sql``;
  return sql<{ seq: string | null; deliveries: boolean; stored: true }>`
    with written as (${written} returning seq, org_id, type, audience, created_at)${queued}${stored}
    select max(seq)::text as seq, ${deliveries} as deliveries, ${key === 'key' ? STORED_OR_REFUSED : sql`true`} as stored${notified}
    from written`;
});

/** What goes with the events in their statement (`writeEvents`). */
export interface WriteEventsOptions {
  /** The write's idempotency record, stored in the statement. */
  key?: KeyRecord | undefined;
  /** Takes what the statement recorded, to announce after the commit; absent, the statement NOTIFYs. */
  written?: ((w: EventsWritten) => void) | undefined;
  /** False: the organization has no enabled webhook, so no deliveries clause (see `Ctx.orgWebhooks`). */
  orgWebhooks?: boolean | undefined;
  /** The statement is its transaction's last: COMMIT goes out with it (`commitWithNextStatement`). */
  commits?: boolean | undefined;
}

/**
 * Writes event rows, in order, with their webhook deliveries, the idempotency record `key`
 * and, unless `written` takes them to announce after the commit (`eventAnnouncer`), the
 * NOTIFY (delivered on commit only), in one statement (one round trip; no lock: readers order
 * by `(xid, seq)`, see `readyEvents`):
 *
 *   with written as (insert into events (…) values (…) returning …),
 *        queued as (<queueDeliveriesOfWritten>),
 *        stored as (<storeKeyRecord>)
 *   select max(seq), exists (select from queued),
 *          case when exists (select from stored) then true else key_stored_meanwhile() end
 *          [, pg_notify('tack_events', max(seq)::text || <' deliveries' when any were queued>)] from written
 *
 * (several rows: `insert … select … from jsonb_to_recordset($rows) as r(…, n) order by r.n`;
 * `queued` only when a row is not an owner's alone, and the organization may have a webhook:
 * `orgWebhooks`, see `Ctx`.)
 * A record of `key` not stored (one committed meanwhile, see `storeKeyRecord`) fails the
 * statement as a serialization failure (migration 0029), so the write rolls back, even with
 * its COMMIT sent behind the statement (`commits`), and runs again; an in-statement NOTIFY
 * goes with the rollback.
 */
export async function writeEvents(db: Kysely<Database>, rows: readonly EventValues[], options: WriteEventsOptions = {}): Promise<void> {
  const { key, written, orgWebhooks, commits } = options;
  const one = rows.length === 1 ? rows[0]! : undefined;
  const queue = orgWebhooks !== false && rows.some((r) => r.audience !== 'owner');
  const shape: EventsShape = `${one ? 'one' : 'many'} ${queue ? 'queue' : '-'} ${key ? 'key' : '-'} ${written ? '-' : 'notify'}`;
  const slots: EventSlots = one ? rowSlots(one) : { rows: JSON.stringify(rows.map((row, n) => ({ ...row, n }))) };
  if (key) Object.assign(slots, key);
  if (commits) commitWithNextStatement(db);
  const row = (await eventsStatement.executeTakeFirst(db, shape, slots))!;
  if (written && row.seq !== null) written({ seq: row.seq, deliveries: row.deliveries });
}

/**
 * The idempotency record of a write that changed nothing (no event to record), failing as the
 * events statement does when a live one was committed meanwhile:
 *
 *   with stored as (<storeKeyRecord>) select <STORED_OR_REFUSED>
 */
const keyAlone = new QueryTemplate(
  'storeKeyAlone',
  (_db, _shape: null, v: Pick<KeyRecord, keyof KeyRecord>) => sql<{ stored: true }>`with stored as (${storeKeyRecord(v)}) select ${STORED_OR_REFUSED} as stored`,
);

/** One event row as the statement's values: JSON columns as text. */
function rowSlots(row: EventValues): EventSlots {
  const slots: Record<string, string | boolean | null> = {};
  for (const [c, type] of WRITTEN) {
    const value = row[c] ?? null;
    slots[`e_${c}`] = type === 'jsonb' ? JSON.stringify(value) : (value as string | boolean | null);
  }
  return slots as EventSlots;
}

export type EventRow = Selectable<EventsTable>;

export const eventColumns = [
  'seq',
  'type',
  'created_at',
  'actor_member_id',
  'actor_name',
  'actor_agent',
  'face',
  'subject_type',
  'subject_id',
  'subject_ref',
  'changes',
  'data',
] as const;

export function presentEvent(row: Pick<EventRow, (typeof eventColumns)[number]>): Event {
  return {
    id: eventId(row.seq),
    type: row.type as EventType,
    created_at: toIso(row.created_at),
    actor: { member_id: row.actor_member_id, name: row.actor_name, agent: row.actor_agent, face: row.face as Event['actor']['face'] },
    subject: { type: row.subject_type as Event['subject']['type'], id: row.subject_id, ref: row.subject_ref },
    changes: row.changes as Event['changes'],
    data: row.data as Event['data'],
  };
}

/** Deletes events older than 90 days (contract §10), in batches; returns how many. */
export async function pruneEvents(ctx: Pick<Ctx, 'db' | 'clock'>): Promise<number> {
  const before = new Date(ctx.clock().getTime() - EVENT_DAYS * 86_400_000).toISOString();
  const result = await ctx.db.deleteFrom('events').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** How long events are kept. */
export const EVENT_DAYS = 90;
