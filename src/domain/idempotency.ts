import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { QueryTemplate } from '../db/query-template.js';
import type { Database } from '../db/schema.js';
import { transactionLock } from '../db/transaction-lock.js';
import { AppError } from './errors.js';
import { pooledRandomBytes } from './random-pool.js';

export const IDEMPOTENCY_TTL_HOURS = 24;

export interface StoredResponse {
  status: number;
  body: string | null;
}

/** JSON with object keys sorted, so the same input always hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function requestHash(input: unknown): string {
  return createHash('sha256').update(canonical(input)).digest('hex');
}

export interface IdempotencySlot {
  owner: string;
  operation: string;
  key: string;
  hash: string;
  /** When set, the stored body is sealed with it (AES-256-GCM), so the table never holds a secret in clear. */
  secret?: Buffer | undefined;
}

const SEALED = 'sealed:v1:';

function slotLabel(slot: IdempotencySlot): Buffer {
  return Buffer.from(`${slot.owner} ${slot.operation} ${slot.key}`);
}

function seal(body: string, slot: IdempotencySlot & { secret: Buffer }): string {
  const iv = pooledRandomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', slot.secret, iv);
  cipher.setAAD(slotLabel(slot));
  const data = Buffer.concat([cipher.update(body, 'utf8'), cipher.final()]);
  return SEALED + Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64');
}

function unseal(stored: string, slot: IdempotencySlot): string {
  if (!stored.startsWith(SEALED)) return stored;
  if (!slot.secret) throw new Error('a sealed idempotent response needs the caller\'s replay secret');
  const raw = Buffer.from(stored.slice(SEALED.length), 'base64');
  const decipher = createDecipheriv('aes-256-gcm', slot.secret, raw.subarray(0, 12));
  decipher.setAAD(slotLabel(slot));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

/**
 * The key's transaction lock as an expression (true when this transaction holds it now), for
 * `claimKey` or for a statement the write makes before it. The lookup of a stored record must
 * stay a later statement than the lock: only then does its snapshot see the commit of the
 * request that held the key.
 */
export function keyLockName(slot: IdempotencySlot): string {
  // Keys are visible ASCII, so a space cannot occur inside any part.
  return `${slot.owner} ${slot.operation} ${slot.key}`;
}

/** A stored record of the key, within its time to live. */
const storedRecord = new QueryTemplate('idempotencyRecord', (db, _shape: null, v: { owner: string; operation: string; key: string }) =>
  db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'status', 'body'])
    .where('token_id', '=', v.owner)
    .where('operation', '=', v.operation)
    .where('key', '=', v.key)
    .where(sql<boolean>`created_at > now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})`),
);

/**
 * Claims the key inside the write's transaction. Another transaction holding the same key
 * means the first request is still running (409 `idempotency_key_in_use`); a committed record
 * is replayed when the body matches, refused (409 `idempotency_key_reused`) when it does not.
 * Returns the stored response to replay, or undefined when the write should run.
 */
export async function claimKey(trx: Kysely<Database>, slot: IdempotencySlot, locked?: boolean): Promise<StoredResponse | undefined> {
  // The lock was taken by an earlier statement of this transaction (the lock named by `keyLockName`, in the caller's re-check), or is taken now.
  const got = locked ?? (await sql<{ got: boolean }>`select ${transactionLock(keyLockName(slot))} as got`.execute(trx)).rows[0]?.got;
  if (!got) {
    throw new AppError('idempotency_key_in_use', 409, 'A request with this Idempotency-Key is still being processed; retry shortly.');
  }
  const existing = await storedRecord.executeTakeFirst(trx, null, { owner: slot.owner, operation: slot.operation, key: slot.key });
  if (!existing) return undefined;
  if (existing.request_hash !== slot.hash) {
    throw new AppError('idempotency_key_reused', 409, 'This Idempotency-Key was already used with a different request.');
  }
  return { status: existing.status, body: existing.body === null ? null : unseal(existing.body, slot) };
}

/** The row an idempotency record stores: the response, its body sealed when the caller has a replay secret. */
export interface KeyRecord {
  token_id: string;
  operation: string;
  key: string;
  request_hash: string;
  status: number;
  body: string | null;
}

export function keyRecord(slot: IdempotencySlot, response: StoredResponse): KeyRecord {
  const secret = slot.secret;
  const body = response.body !== null && secret ? seal(response.body, { ...slot, secret }) : response.body;
  return { token_id: slot.owner, operation: slot.operation, key: slot.key, request_hash: slot.hash, status: response.status, body };
}

/**
 * Stores a record (only an expired one can be in the way: a live one was replayed by
 * `claimKey`), as a statement of its own or inside another (`storeKeyRecord` is also a CTE of
 * `writeEvents`'s statement):
 *
 *   insert into idempotency_keys (token_id, operation, key, request_hash, status, body) values (…)
 *   on conflict (token_id, operation, key) do update set request_hash = …, status = …, body = …, created_at = now()
 */
export function storeKeyRecord(record: KeyRecord) {
  return sql`insert into idempotency_keys (token_id, operation, key, request_hash, status, body)
    values (${record.token_id}, ${record.operation}, ${record.key}, ${record.request_hash}, ${record.status}, ${record.body})
    on conflict (token_id, operation, key) do update
    set request_hash = excluded.request_hash, status = excluded.status, body = excluded.body, created_at = now()`;
}

/** Records the response in the same transaction as the write it guards. */
export async function recordKey(trx: Kysely<Database>, slot: IdempotencySlot, response: StoredResponse): Promise<void> {
  await storeKeyRecord(keyRecord(slot, response)).execute(trx);
}

/** Deletes records past their 24 hours; returns how many. */
export async function pruneIdempotencyKeys(db: Kysely<Database>): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where(sql<boolean>`created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
