import { z } from 'zod';
import type { Selectable } from 'kysely';
import { announceEvents, lockEvents } from '../db/event-notifications.js';
import type { EventsTable } from '../db/schema.js';
import { FACES, type Ctx } from './context.js';
import { SUBJECT_TYPES, type Snapshot, type SubjectKey } from './event-subjects.js';
import { toIso } from './time.js';
import { queueWebhookDeliveries } from './webhook-outbox.js';

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

/**
 * Records the write's events in its own transaction (`ctx.db`): takes the events lock (so
 * they commit in `seq` order), inserts them in order, and announces the last one to every
 * process (delivered on commit only).
 */
export async function insertEvents(ctx: Ctx, drafts: readonly EventDraft[]): Promise<void> {
  if (drafts.length === 0) return;
  const p = ctx.principal;
  const name = await actorName(ctx);
  const createdAt = ctx.clock().toISOString();
  await lockEvents(ctx.db);
  const rows = await ctx.db
    .insertInto('events')
    .values(
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
        changes: JSON.stringify(d.changes),
        data: d.data === null ? null : JSON.stringify(d.data),
      })),
    )
    .returning('seq')
    .execute();
  // Webhooks' outbox: their deliveries commit with the events, or not at all.
  await queueWebhookDeliveries(ctx.db, rows.map((r) => r.seq));
  await announceEvents(ctx.db, rows[rows.length - 1]!.seq);
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
