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
  /** When set (an answer that carries a secret), the stored body is sealed with it (AES-256-GCM), so the table never holds that secret in clear. */
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

/** The name of the key's transaction lock (`transactionLock`). */
export function keyLockName(slot: IdempotencySlot): string {
  // Keys are visible ASCII, so a space cannot occur inside any part.
  return `${slot.owner} ${slot.operation} ${slot.key}`;
}

/** A key's record as stored: what `claimKey` decides on. */
export interface StoredRecord {
  request_hash: string;
  status: number;
  body: string | null;
}

/** The key as a statement's values (`KeyClaim`'s columns). */
export interface KeyClaimValues {
  lock: string;
  owner: string;
  operation: string;
  key: string;
  [slot: string]: string;
}

export const keyClaimValues = (slot: IdempotencySlot): KeyClaimValues => ({ lock: keyLockName(slot), owner: slot.owner, operation: slot.operation, key: slot.key });

/**
 * The key's lock and its stored record (within its time to live) as two columns, `locked`
 * and `stored` (JSON, null when there is none), for `claimKey`, or for the statement a write
 * makes first (the caller's re-check): one round trip for both. The record is read in the
 * statement's snapshot, which may predate the commit of the request that held the lock just
 * before: `storeKeyRecord` then finds that record and the write runs again (`key_stored_meanwhile()`, a 40001).
 */
export function keyClaimColumns(v: KeyClaimValues) {
  return [
    transactionLock(v.lock).as('locked'),
    sql<StoredRecord | null>`(select json_build_object('request_hash', k.request_hash, 'status', k.status, 'body', k.body) from idempotency_keys k
      where k.token_id = ${v.owner} and k.operation = ${v.operation} and k.key = ${v.key}
      and k.created_at > now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS}))`.as('stored'),
  ] as const;
}

/** What a statement that claimed the key found (`keyClaimColumns`). */
export interface KeyClaim {
  locked: boolean;
  stored: StoredRecord | null;
}

/** The claim as a statement selecting `keyClaimColumns` read it (optional columns: its `$if`). */
export const claimOf = (row: { locked?: boolean; stored?: StoredRecord | null }): KeyClaim => ({ locked: row.locked === true, stored: row.stored ?? null });

const claimStatement = new QueryTemplate('claimKey', (db, _shape: null, v: KeyClaimValues) => db.selectNoFrom(keyClaimColumns(v)));

/**
 * Claims the key inside the write's transaction. Another transaction holding the same key
 * means the first request is still running (409 `idempotency_key_in_use`); a committed record
 * is replayed when the body matches, refused (409 `idempotency_key_reused`) when it does not.
 * Returns the stored response to replay, or undefined when the write should run. `claimed`:
 * what an earlier statement of this transaction found (`keyClaimColumns`), else it asks now.
 */
export async function claimKey(trx: Kysely<Database>, slot: IdempotencySlot, claimed?: KeyClaim): Promise<StoredResponse | undefined> {
  const claim = claimed ?? (await claimStatement.executeTakeFirst(trx, null, keyClaimValues(slot)))!;
  if (!claim.locked) {
    throw new AppError('idempotency_key_in_use', 409, 'A request with this Idempotency-Key is still being processed; retry shortly.');
  }
  const existing = claim.stored;
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
 * Stores a record in place of an expired one, never of a live one, as a statement of its own
 * or inside another (`storeKeyRecord` is also a CTE of `writeEvents`'s statement); it returns
 * a row when it stored. None means a live record was committed since `claimKey` read: the
 * write that stores must then run again (the events statement fails with `key_stored_meanwhile()`,
 * migration 0029), and will replay that record.
 *
 *   insert into idempotency_keys (token_id, operation, key, request_hash, status, body) values (…)
 *   on conflict (token_id, operation, key) do update set request_hash = …, status = …, body = …, created_at = now()
 *   where idempotency_keys.created_at <= now() - 24 hours
 *   returning token_id
 */
export function storeKeyRecord(record: KeyRecord) {
  return sql<{ token_id: string }>`insert into idempotency_keys (token_id, operation, key, request_hash, status, body)
    values (${record.token_id}, ${record.operation}, ${record.key}, ${record.request_hash}, ${record.status}, ${record.body})
    on conflict (token_id, operation, key) do update
    set request_hash = excluded.request_hash, status = excluded.status, body = excluded.body, created_at = now()
    where idempotency_keys.created_at <= now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})
    returning token_id`;
}

/**
 * Records the response in the same transaction as the write it guards. Used by operations
 * that commit their own steps, where two processes may both run one key: the first record stays.
 */
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
