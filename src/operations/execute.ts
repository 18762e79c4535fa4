import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Principal } from '../domain/context.js';
import { claimKey, recordKey, requestHash, type IdempotencySlot } from '../domain/idempotency.js';
import { requireScope, requireWriter } from '../domain/permissions.js';
import type { Operation } from './operation.js';

export interface Runtime {
  db: Kysely<Database>;
  clock: () => Date;
  /** Base of snippets' public links, handed to the domain in every Ctx. */
  publicBaseUrl?: string;
  /** Called after a write commits (for example, to drop cached principals). */
  afterCommit?: (op: Operation) => void;
}

export interface Outcome {
  status: number;
  /** The serialized response body, exactly as first sent (null for 204). */
  body: string | null;
  replayed: boolean;
}

/**
 * Runs one operation for one caller, the same way for every face: scope and role checks,
 * then a read on the pool, or a write in its own transaction together with its
 * idempotency record. `input` must already be validated against `op.input`.
 */
export async function execute(
  rt: Runtime,
  op: Operation,
  principal: Principal,
  input: Record<string, unknown>,
  idempotencyKey?: string,
): Promise<Outcome> {
  requireScope(principal, op.scope);
  if (op.readOnly) {
    const result = await op.run({ db: rt.db, clock: rt.clock, principal, publicBaseUrl: rt.publicBaseUrl }, input);
    return { status: op.status, body: serialize(result), replayed: false };
  }
  requireWriter(principal);
  const slot: IdempotencySlot | undefined = idempotencyKey
    ? { owner: principal.tokenId ?? `member:${principal.memberId}`, operation: op.name, key: idempotencyKey, hash: requestHash(input), secret: principal.replaySecret }
    : undefined;
  const outcome = await rt.db.transaction().execute(async (trx) => {
    if (slot) {
      const stored = await claimKey(trx, slot);
      if (stored) return { ...stored, replayed: true };
    }
    const result = await op.run({ db: trx, clock: rt.clock, principal, publicBaseUrl: rt.publicBaseUrl }, input);
    const response = { status: op.status, body: serialize(result) };
    if (slot) await recordKey(trx, slot, response);
    return { ...response, replayed: false };
  });
  if (!outcome.replayed) rt.afterCommit?.(op);
  return outcome;
}

function serialize(result: unknown): string | null {
  return result === undefined ? null : JSON.stringify(result);
}
