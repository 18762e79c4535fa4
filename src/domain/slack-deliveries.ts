import { sql, type Kysely } from 'kysely';
import type { Database, SlackDeliveriesTable } from '../db/schema.js';

/** Slack retries for at most about an hour; a day leaves ample room. */
export const SLACK_DELIVERY_TTL_HOURS = 24;

export interface Delivery {
  identity: string;
  kind: SlackDeliveriesTable['kind'];
}

/**
 * Records that Slack deliveries arrived, many in one statement (one commit for all).
 * Returns the identities that are new; one recorded before (by this process or another)
 * is not among them. An identity given twice is recorded once.
 *
 * ```sql
 * insert into slack_deliveries (identity, kind)
 * select identity, kind from jsonb_to_recordset($1) as d(identity text, kind text)
 * on conflict do nothing returning identity
 * ```
 */
export async function recordDeliveries(db: Kysely<Database>, deliveries: readonly Delivery[]): Promise<Set<string>> {
  if (deliveries.length === 0) return new Set();
  const items = JSON.stringify(deliveries.map((d) => ({ identity: d.identity, kind: d.kind })));
  const { rows } = await sql<{ identity: string }>`
    insert into slack_deliveries (identity, kind)
    select d.identity, d.kind from jsonb_to_recordset(${items}::jsonb) as d(identity text, kind text)
    on conflict (identity) do nothing
    returning identity`.execute(db);
  return new Set(rows.map((r) => r.identity));
}

/** Forgets deliveries past their TTL; returns how many. */
export async function pruneDeliveries(db: Kysely<Database>): Promise<number> {
  const result = await db
    .deleteFrom('slack_deliveries')
    .where(sql<boolean>`received_at < now() - make_interval(hours => ${SLACK_DELIVERY_TTL_HOURS})`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
