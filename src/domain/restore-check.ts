import { sql, type Kysely } from 'kysely';
import { announceAuthChange } from '../db/auth-notifications.js';
import type { Database } from '../db/schema.js';
import { fenceClaimsAfterRestore } from './slack-posts.js';

/** How long after a restore new Slack claims read their conversation's history first. */
export const RESTORE_WINDOW_HOURS = 48;

export interface RestoreCheckOptions {
  /** When the backup was taken; by default the latest write the restored database holds. */
  since?: Date;
  /** End every web session: everyone signs in again. */
  endSessions?: boolean;
  windowHours?: number;
}

export interface LiveToken {
  id: string;
  name: string;
  hint: string;
  org: string;
  member: string;
  role: string;
  scopes: string[];
  agent: boolean;
  created_at: string;
  expires_at: string | null;
}

export interface LiveSession {
  id: string;
  org: string;
  member: string;
  created_at: string;
  last_used_at: string;
}

export interface RestoreReport {
  /** What the history of Slack claims is read from (no later than the backup). */
  since: Date;
  /** Whether `since` was given or read from the data. */
  sinceGiven: boolean;
  windowHours: number;
  /** Pending claims (sending or retry) made unsure. */
  pendingMarked: number;
  /** Unused sign-in links that could have been used after the backup: ended. */
  signinLinksEnded: number;
  /** Sessions ended (with `endSessions`). */
  sessionsEnded: number;
  tokens: LiveToken[];
  sessions: LiveSession[];
}

/**
 * The latest write the restored database holds: the backup was taken no earlier, so anything
 * tack did after the backup (a Slack post, a revocation) happened later than this.
 */
async function latestWrite(db: Kysely<Database>): Promise<Date> {
  const { rows } = await sql<{ at: string | Date }>`
    select least(now(), coalesce(greatest(
      (select max(updated_at) from slack_posts),
      (select max(received_at) from slack_deliveries),
      (select max(updated_at) from slack_subscriptions),
      (select max(updated_at) from todos),
      (select max(updated_at) from cards),
      (select max(updated_at) from snippets),
      (select max(updated_at) from members),
      (select max(greatest(created_at, revoked_at)) from tokens),
      (select max(last_used_at) from sessions),
      (select max(greatest(created_at, used_at)) from signin_links),
      (select max(created_at) from idempotency_keys)
    ), now() - interval '1 day')) as at`.execute(db);
  return new Date(rows[0]!.at);
}

/**
 * Makes a restored database safe to serve from (`tack restore-check`), in one transaction:
 *
 * - Slack: pending claims become unsure, and claims made in the next `windowHours` are unsure
 *   too, reading their conversation from `since`: a message posted after the backup is found
 *   and recorded, never posted again (see `fenceClaimsAfterRestore`).
 * - Sign-in links not yet used are ended: one used after the backup would work again.
 * - With `endSessions`, every web session ends.
 *
 * What it cannot do is know which tokens were revoked and which sessions were ended after
 * the backup: those are live again. It lists every live token and session for a person to
 * check. Other processes drop their cached credentials (NOTIFY on commit).
 */
export async function checkRestore(db: Kysely<Database>, options: RestoreCheckOptions = {}): Promise<RestoreReport> {
  const windowHours = options.windowHours ?? RESTORE_WINDOW_HOURS;
  return db.transaction().execute(async (trx) => {
    const since = options.since ?? (await latestWrite(trx));
    const pendingMarked = await fenceClaimsAfterRestore(trx, { historySince: since, windowHours });
    const links = await trx
      .updateTable('signin_links')
      .set({ used_at: sql<string>`now()` })
      .where('used_at', 'is', null)
      .where('expires_at', '>', sql<string>`now()`)
      .executeTakeFirst();
    const sessionsEnded = options.endSessions ? Number((await trx.deleteFrom('sessions').executeTakeFirst()).numDeletedRows) : 0;
    await announceAuthChange(trx);
    const tokens = await trx
      .selectFrom('tokens as t')
      .innerJoin('members as m', 'm.id', 't.member_id')
      .innerJoin('organizations as o', 'o.id', 't.org_id')
      .select(['t.id', 't.name', 't.hint', 'o.slug as org', 'm.name as member', 'm.role', 't.scopes', 't.agent', 't.created_at', 't.expires_at'])
      .where('t.revoked_at', 'is', null)
      .where((eb) => eb.or([eb('t.expires_at', 'is', null), eb('t.expires_at', '>', sql<string>`now()`)]))
      .orderBy('o.slug')
      .orderBy('t.created_at')
      .orderBy('t.id')
      .execute();
    const sessions = await trx
      .selectFrom('sessions as s')
      .innerJoin('members as m', 'm.id', 's.member_id')
      .innerJoin('organizations as o', 'o.id', 's.org_id')
      .select(['s.id', 'o.slug as org', 'm.name as member', 's.created_at', 's.last_used_at'])
      .orderBy('o.slug')
      .orderBy('s.created_at')
      .orderBy('s.id')
      .execute();
    return {
      since,
      sinceGiven: options.since !== undefined,
      windowHours,
      pendingMarked,
      signinLinksEnded: Number(links.numUpdatedRows),
      sessionsEnded,
      tokens: tokens.map((t) => ({ ...t, created_at: iso(t.created_at), expires_at: t.expires_at === null ? null : iso(t.expires_at) })),
      sessions: sessions.map((s) => ({ ...s, created_at: iso(s.created_at), last_used_at: iso(s.last_used_at) })),
    };
  });
}

function iso(value: string | Date): string {
  return new Date(value).toISOString();
}
