import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Ctx } from '../domain/context.js';
import { AppError } from '../domain/errors.js';
import type { KeyRecord } from '../domain/idempotency.js';
import { RawJson } from '../db/raw-json.js';
import { linkedTo, snapshot, snapshotOfAnswer, type Snapshot, type SubjectKey } from '../domain/event-subjects.js';
import { EVENT_TYPES, insertEvents, type EventDraft, type EventType } from '../domain/events.js';
import { recordMoveRefusal } from '../domain/move-refusals.js';
import { eventDescriptions, type ChangeDescription } from './event-descriptions.js';
import type { Runtime } from './runtime.js';
import type { OperationCore } from './operation.js';
import { writeTransaction } from './write-transaction.js';

/** Fields that change with every write and say nothing of what changed. */
const UNTOLD = new Set(['updated_at']);

/** The description of a write, or undefined for one that records none; an undescribed write is our bug. */
function describedChanges(op: OperationCore): ChangeDescription | undefined {
  const description = eventDescriptions[op.name];
  if (description === undefined) throw new Error(`the write ${op.name} has no event description (src/operations/event-descriptions.ts)`);
  return 'none' in description ? undefined : description;
}

const keyText = (key: SubjectKey) => `${key.type} ${key.id}`;

interface Watched {
  key: SubjectKey;
  before: Snapshot | undefined;
}

/** Reads each thing (and what it is linked to) once, keyed by its id as read. */
async function watch(ctx: Ctx, keys: readonly SubjectKey[], watched: Map<string, Watched>, before: boolean): Promise<void> {
  const next: SubjectKey[] = [];
  for (const given of keys) {
    const thing = before ? await snapshot(ctx, given) : undefined;
    // A ref or slug is read as its id from here on: the write may change the ref.
    const key = thing && typeof thing.data.id === 'string' ? { type: given.type, id: thing.data.id } : given;
    if (watched.has(keyText(key))) continue;
    watched.set(keyText(key), { key, before: thing });
    if (thing) next.push(...linkedTo(key, thing).filter((k) => !watched.has(keyText(k))));
  }
  if (next.length > 0) await watch(ctx, next, watched, before);
}

function changesOf(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, [unknown, unknown]> {
  const changes: Record<string, [unknown, unknown]> = {};
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (UNTOLD.has(field)) continue;
    const was = before[field] ?? null;
    const is = after[field] ?? null;
    if (!sameValue(was, is)) changes[field] = [was, is];
  }
  return changes;
}

/** Equal as JSON: scalars compared as they are, and only objects and arrays as their JSON text. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The event type of one thing's change, or undefined when nothing of it changed. */
function typeOf(key: SubjectKey, before: Snapshot | undefined, after: Snapshot | undefined, changes: Record<string, unknown>): EventType | undefined {
  let type: string;
  if (!before && !after) return undefined;
  if (!before) type = `${key.type}.created`;
  else if (!after) type = key.type === 'member' ? 'member.removed' : key.type === 'token' ? 'token.revoked' : `${key.type}.deleted`;
  else {
    const fields = Object.keys(changes);
    if (fields.length === 0) return undefined;
    if (key.type === 'card' && 'workflow_status' in changes) type = 'card.moved';
    else if (key.type === 'todo' && 'done' in changes) type = after.data.done === true ? 'todo.completed' : 'todo.reopened';
    else if (key.type === 'token' && 'revoked_at' in changes) type = 'token.revoked';
    else if (key.type === 'snippet' && fields.length === 1 && fields[0] === 'public_url') type = 'snippet.link_rotated';
    else type = `${key.type}.updated`;
  }
  if (!(EVENT_TYPES as readonly string[]).includes(type)) throw new Error(`no event type ${type}`);
  return type as EventType;
}

/**
 * Runs one write (`run`, inside its transaction `ctx.db`) and records an event for each thing
 * it changed, in the same transaction: the things its description names are read before and
 * after it, as their read operations answer them, or handed over by the write itself (its
 * answer for the "after", `answers`; its own statement's old values for the "before",
 * `answersBefore`). The write's idempotency record (`keyOf` its answer) is stored in the
 * events' own statement. Replays never get here; a write that fails rolls back with its events.
 * `commits`: nothing runs after the events statement, so COMMIT goes out with it.
 */
export async function withEvents<T>(
  ctx: Ctx,
  op: OperationCore,
  input: Record<string, unknown>,
  run: (ctx: Ctx) => Promise<T>,
  keyOf: (answer: T) => KeyRecord | undefined = () => undefined,
  options: { commits?: boolean } = {},
): Promise<T> {
  const described = describedChanges(op);
  if (!described) {
    const answer = await run(ctx);
    await insertEvents(ctx, [], keyOf(answer), options.commits);
    return answer;
  }
  const watched = new Map<string, Watched>();
  let answer: T;
  if (described.answersBefore && described.answers) {
    // The write hands over its thing's "before" itself: no read goes before it.
    const answered = described.answers;
    answer = await run({
      ...ctx,
      reportBefore: async (data) => {
        const before = snapshotOfAnswer(ctx, answered, data as Record<string, unknown>);
        const key = { type: answered, id: String(before.data.id) };
        watched.set(keyText(key), { key, before });
        // What it links to is read now, before the write changes it.
        await watch(ctx, linkedTo(key, before), watched, true);
      },
    });
  } else {
    await watch(ctx, (await described.touches?.(ctx, input)) ?? [], watched, true);
    answer = await run(ctx);
  }
  const fields =
    answer === null || typeof answer !== 'object' ? undefined : answer instanceof RawJson ? (JSON.parse(answer.text) as Record<string, unknown>) : (answer as Record<string, unknown>);
  if (described.makes && fields) await watch(ctx, described.makes(fields), watched, false);
  const answered = described.answers;
  const drafts: EventDraft[] = [];
  const queue = [...watched.values()];
  for (const { key, before } of queue) {
    // The write answered this very thing as its reader would read it now: no need to read it again.
    const after = answered === key.type && fields?.id === key.id ? snapshotOfAnswer(ctx, answered, fields) : await snapshot(ctx, key);
    // What it made may be linked to more (a todo made mirroring a criterion): those come next.
    if (after && !before) {
      for (const k of linkedTo(key, after)) {
        if (watched.has(keyText(k))) continue;
        watched.set(keyText(k), { key: k, before: undefined });
        queue.push({ key: k, before: undefined });
      }
    }
    const changes = before && after ? changesOf(before.data, after.data) : {};
    const type = typeOf(key, before, after, changes);
    if (type) drafts.push({ type, subject: key, snapshot: (after ?? before)!, changes, data: after?.data ?? null });
  }
  await insertEvents(ctx, drafts, keyOf(answer), options.commits);
  return answer;
}

/**
 * Runs a write (`write`: its whole transaction); a refusal its description records (a gated
 * move refused to an agent) is recorded after the rollback, in a small transaction of its own,
 * as `card.move_refused` with the refusal's code. The refusal is then thrown as it was.
 */
export async function recordingRefusals<T>(
  rt: Runtime,
  op: OperationCore,
  ctxOf: (db: Kysely<Database>) => Ctx,
  input: Record<string, unknown>,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const described = op.readOnly ? undefined : describedChanges(op);
    if (err instanceof AppError && described?.refusals?.includes(err.code) && described.touches) {
      await writeTransaction(rt, async (trx) => {
        const ctx = ctxOf(trx);
        const [key] = await described.touches!(ctx, input);
        if (key) await recordMoveRefusal(ctx, key, err.code, input.workflow_status);
      });
    }
    throw err;
  }
}
