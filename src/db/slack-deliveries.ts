import { sql, type Kysely } from 'kysely';
import type { Database, SlackDeliveriesTable } from './schema.js';

/** Slack retries for at most about an hour; a day leaves ample room. */
export const SLACK_DELIVERY_TTL_HOURS = 24;

/**
 * Records that a Slack delivery arrived. True when this identity is new; false when it was
 * recorded before (by this process or another one).
 *
 * ```sql
 * insert into slack_deliveries (identity, kind) values ($1, $2) on conflict do nothing returning identity
 * ```
 */
export async function recordDelivery(db: Kysely<Database>, identity: string, kind: SlackDeliveriesTable['kind']): Promise<boolean> {
  const row = await db
    .insertInto('slack_deliveries')
    .values({ identity, kind })
    .onConflict((oc) => oc.column('identity').doNothing())
    .returning('identity')
    .executeTakeFirst();
  return row !== undefined;
}

/** Forgets deliveries past their TTL; returns how many. */
export async function pruneDeliveries(db: Kysely<Database>): Promise<number> {
  const result = await db
    .deleteFrom('slack_deliveries')
    .where(sql<boolean>`received_at < now() - make_interval(hours => ${SLACK_DELIVERY_TTL_HOURS})`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
