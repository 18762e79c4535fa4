import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { confirmCaller, confirmCallerClaiming, confirmsWithStatement } from '../domain/confirm-caller.js';
import { holdNextStatement } from '../db/bound-transaction.js';
import type { Ctx, Principal } from '../domain/context.js';
import { AppError } from '../domain/errors.js';
import { RawJson } from '../db/raw-json.js';
import { claimKey, keyClaimValues, keyRecord, recordKey, requestHash, type IdempotencySlot } from '../domain/idempotency.js';
import { requireScope, requireWriter } from '../domain/permissions.js';
import { slackProfileZone } from '../domain/time-zone.js';
import { resolveDueDates } from '../domain/todo-due.js';
import type { OperationCore } from './operation.js';
import type { Runtime } from './runtime.js';
import { writeTransaction } from './write-transaction.js';

export type { Runtime } from './runtime.js';
import { recordingRefusals, withEvents } from './event-recording.js';


export interface Outcome<B = string | null> {
  status: number;
  /**
   * The answer as the face presents it: by default the serialized response body, exactly as
   * first sent (null for 204); for an in-process call (`callOperation`) the answer's value.
   */
  body: B;
  replayed: boolean;
}

/** How a face takes the run's answer: serialized (HTTP, MCP, the idempotency record) or as a value (in-process). */
export type Presenter<B> = (result: unknown) => B;

/**
 * Runs one operation for one caller, the same way for every face: scope and role checks,
 * then a read on the pool, or a write in its own transaction together with its
 * idempotency record. Inside that transaction the caller's token is read again, so no
 * process applies a write of a token whose revocation has committed. That read goes out with
 * the write's first statement (held back for it: one round trip less), and no answer of the
 * write's statements reaches the operation, nor does COMMIT go out, before the read is
 * checked: a refused caller's write, or one whose key was answered already (replayed), rolls
 * back; one whose caller has another role now runs again as confirmed. `input` must already
 * be validated (`validateInput`); `today` and `tomorrow` in its due-date fields are resolved
 * here, in the caller's time zone, so every face reads them alike (the idempotency key is
 * bound to the words as sent).
 */
export async function execute(rt: Runtime, op: OperationCore, principal: Principal, input: Record<string, unknown>, idempotencyKey?: string): Promise<Outcome>;
/** An in-process call: no idempotency key (nothing to replay), the answer presented by `present`. */
export async function execute<B>(rt: Runtime, op: OperationCore, principal: Principal, input: Record<string, unknown>, idempotencyKey: undefined, present: Presenter<B>): Promise<Outcome<B>>;
export async function execute(
  rt: Runtime,
  op: OperationCore,
  principal: Principal,
  input: Record<string, unknown>,
  idempotencyKey?: string,
  present: Presenter<unknown> = serialize,
): Promise<Outcome<unknown>> {
  if (op.scope !== null) requireScope(principal, op.scope);
  const ctx = (db: Kysely<Database>, caller = principal, eventsWritten?: Ctx['eventsWritten']): Ctx => ({
    db,
    clock: rt.clock,
    principal: caller,
    publicBaseUrl: rt.publicBaseUrl,
    appUrl: rt.appUrl,
    jobs: rt.jobs,
    webhooks: rt.webhooks,
    ...(eventsWritten && { eventsWritten }),
  });
  if (op.readOnly) {
    const due = op.dueDateFields.length === 0 ? input : await resolveDueDates(ctx(rt.db), input, op.dueDateFields);
    const result = await op.run(ctx(rt.db), due);
    return { status: op.status, body: present(result), replayed: false };
  }
  refuseReader(op, principal);
  // An answer that carries a secret (`noStore`: a new token, a webhook's signing secret) is
  // stored sealed with the caller's replay secret; any other is stored as sent, since it holds
  // nothing its own tables do not (sealing every answer was a twentieth of a write's CPU).
  const slot: IdempotencySlot | undefined = idempotencyKey
    ? { owner: idempotencyOwner(principal), operation: op.name, key: idempotencyKey, hash: requestHash(input), secret: op.noStore ? principal.replaySecret : undefined }
    : undefined;
  // Before the transaction: the embedded database has one connection, which the transaction holds.
  input = await resolveDueDates(ctx(rt.db), input, op.dueDateFields);
  // A Slack user's profile zone (the time-zone rule's fallback, for `due_state`) is asked of
  // Slack now, so no transaction waits on Slack; the answer is kept for the rest of the request.
  await slackProfileZone(principal);
  if (op.ownTransactions) {
    const caller = await confirmCaller(rt.db, principal, rt.clock());
    refuseReader(op, caller);
    return executeOutsideTransaction(rt, op, ctx(rt.db, caller), input, slot, present);
  }
  // Events (contract §10): recorded by `withEvents` in the write's transaction; a refusal worth recording, after its rollback.
  const write = (speculative: boolean) => writeTransaction(rt, async (trx, scope) => {
    // The caller re-read and the key claimed (its lock and stored record) in one statement; a refused caller's lock ends with the rollback.
    // Speculative: that statement goes out with the write's first, whose answer waits for it (`holdNextStatement`).
    const held = speculative && confirmsWithStatement(principal) ? holdNextStatement(trx) : undefined;
    const runCtx = ctx(trx, principal, scope.eventsWritten);
    const confirming = confirmCallerClaiming(trx, principal, rt.clock(), slot && keyClaimValues(slot)).then(async ({ principal: caller, claim, orgWebhooks }) => {
      refuseReader(op, caller);
      if (slot) {
        const stored = await claimKey(trx, slot, claim);
        if (stored) throw new Replay({ ...stored, replayed: true });
      }
      // The write ran as the caller the request came with: another role (a ceiling since), and it runs again as confirmed.
      if (held && caller !== principal) throw new Reconfirm();
      runCtx.principal = caller;
      if (orgWebhooks !== undefined) runCtx.orgWebhooks = orgWebhooks;
    });
    if (held) {
      held.checkedBy(confirming);
      // Its statement is held (or it failed before one): the write's first statement takes it along.
      if (!(await Promise.race([held.arrived.then(() => true), confirming.then(() => false, () => false)]))) {
        await confirming;
        throw new Error('confirming the caller ran no statement');
      }
    } else {
      await confirming;
    }
    // A change to tokens or members tells every process, on commit only (a NOTIFY): sent before
    // the write, so that the events statement is the transaction's last.
    if (op.changesAuth) await scope.authChanged();
    let response: { status: number; body: unknown } | undefined;
    try {
      // The answer is stored with the events, in their statement, and COMMIT goes out with it (two round trips less).
      await withEvents(runCtx, op, input, (c) => op.run(c, input), (result) => {
        response = { status: op.status, body: present(result) };
        return slot && keyRecord(slot, recorded(response));
      }, { commits: true });
    } catch (err) {
      // What the caller's confirmation refuses is the answer, whatever the write ran into.
      await held?.settle();
      throw err;
    }
    return { ...response!, replayed: false };
  });
  const outcome = async (speculative: boolean): Promise<Outcome<unknown>> => {
    try {
      return await write(speculative);
    } catch (err) {
      if (err instanceof Replay) return err.outcome;
      throw err;
    }
  };
  const confirmedWrite = () => outcome(true).catch((err: unknown) => (err instanceof Reconfirm ? outcome(false) : Promise.reject(err)));
  return recordingRefusals(rt, op, (db) => ctx(db), input, confirmedWrite);
}

/** The key's stored answer, to replay: the write's transaction rolls back (`execute`). */
class Replay {
  constructor(readonly outcome: Outcome<unknown>) {}
}

/** The caller's confirmation found another principal than the one the write ran as: it runs again, not speculatively. */
class Reconfirm {}

/**
 * Viewers read only: a write needs a writer role, except a write that names no scope, whose
 * domain function decides who may (ending one's own credentials is for everyone).
 */
function refuseReader(op: OperationCore, caller: Principal): void {
  if (op.scope !== null) requireWriter(caller);
}

/** Idempotency keys are scoped per token, per web session, else per member (Slack). */
function idempotencyOwner(principal: Principal): string {
  if (principal.tokenId !== null) return principal.tokenId;
  return principal.sessionId !== undefined ? principal.sessionId : `member:${principal.memberId}`;
}

// Keys of `ownTransactions` requests still running in this process.
const running = new Set<string>();

/**
 * An operation that commits its own steps runs on the pool, so its key cannot be held by a
 * transaction around it: the key is checked (replayed or refused) in a short transaction
 * first, held in memory while the operation runs, and its response recorded afterwards.
 * Two processes running the same key at the same moment both run it; only operations whose
 * second run changes nothing (jobs) may be `ownTransactions`.
 */
async function executeOutsideTransaction(
  rt: Runtime,
  op: OperationCore,
  ctx: Ctx,
  input: Record<string, unknown>,
  slot: IdempotencySlot | undefined,
  present: Presenter<unknown>,
): Promise<Outcome<unknown>> {
  const name = slot && `${slot.owner} ${slot.operation} ${slot.key}`;
  if (slot && name) {
    if (running.has(name)) throw new AppError('idempotency_key_in_use', 409, 'A request with this Idempotency-Key is still being processed; retry shortly.');
    const stored = await writeTransaction(rt, (trx) => claimKey(trx, slot));
    if (stored) return { ...stored, replayed: true };
    running.add(name);
  }
  try {
    const result = await op.run(ctx, input);
    const response = { status: op.status, body: present(result) };
    if (slot) await writeTransaction(rt, (trx) => recordKey(trx, slot, recorded(response)));
    rt.afterCommit?.(op);
    return { ...response, replayed: false };
  } finally {
    if (name) running.delete(name);
  }
}

/**
 * The response an idempotency record keeps. A key comes only with the default presenter
 * (`serialize`: the overloads give an in-process call none), so the body is the text sent.
 */
function recorded(response: { status: number; body: unknown }): { status: number; body: string | null } {
  return response as { status: number; body: string | null };
}

/** The response body `/v1` sends: Postgres's own JSON text as is, else the value serialized. */
function serialize(result: unknown): string | null {
  if (result instanceof RawJson) return result.text;
  return result === undefined ? null : JSON.stringify(result);
}
