import { z } from 'zod';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Principal } from './context.js';
import { notFound } from './errors.js';
import { id } from './fields.js';

/** The word for the caller wherever a member id is taken, as `listCards` takes `assignee=me`. */
export const ME = 'me';

/** Member ids (or `me`), each at most once; the order given is the order shown. */
export const assigneeIds = z
  .array(z.union([z.literal(ME), id('mem')]))
  .max(50, 'must have at most 50 assignees')
  .transform((ids) => [...new Set(ids)])
  .describe('Member ids; `me` is you');

/** The member a member id or `me` names. */
export function memberIdOf(principal: Pick<Principal, 'memberId'>, memberId: string): string {
  return memberId === ME ? principal.memberId : memberId;
}

/** The member ids `ids` names (`me` as the caller's own), each at most once, in the order given. */
export function assigneesOf(principal: Pick<Principal, 'memberId'>, ids: readonly string[]): string[] {
  return [...new Set(ids.map((memberId) => memberIdOf(principal, memberId)))];
}

/** Every id must be a member of the organization; 404 `member_not_found` otherwise. */
export async function requireMembers(db: Kysely<Database>, orgId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const rows = await db.selectFrom('members').select('id').where('org_id', '=', orgId).where('id', 'in', ids).execute();
  if (rows.length !== ids.length) {
    const found = new Set(rows.map((r) => r.id));
    throw notFound('member', ids.find((id) => !found.has(id)));
  }
}

/**
 * Replaces a card's assignees with `ids`, in that order. The table has no organization of
 * its own, so the card is named through its organization's cards.
 *
 * `delete from card_assignees where card_id in (select id from cards where org_id = $1 and id = $2)`
 */
export async function setAssignees(db: Kysely<Database>, orgId: string, cardId: string, ids: string[], replace: boolean): Promise<void> {
  if (replace) {
    await db
      .deleteFrom('card_assignees')
      .where('card_id', 'in', (eb) => eb.selectFrom('cards').select('id').where('org_id', '=', orgId).where('id', '=', cardId))
      .execute();
  }
  if (ids.length === 0) return;
  await db
    .insertInto('card_assignees')
    .values(ids.map((memberId, i) => ({ card_id: cardId, member_id: memberId, position: i + 1 })))
    .execute();
}
