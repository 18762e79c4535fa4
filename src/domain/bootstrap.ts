import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { SCOPES } from './context.js';
import { newId } from './ids.js';
import type { LinkLimits } from './signin-links.js';
import { generateToken, hashToken, tokenHint } from './token-format.js';

const BOOTSTRAP_LOCK = 7_412_032;

export interface BootstrapResult {
  created: boolean;
  /** The new organization, its owner and the owner token's id, when start-up created them. */
  owner?: { orgId: string; memberId: string; tokenId: string };
  /** The owner token, only when start-up generated it (print it once); undefined otherwise. */
  generatedToken?: string;
}

/**
 * On an empty database: organization `default`, an `owner` member and an owner token with
 * every scope (`TACK_BOOTSTRAP_TOKEN` when given). Safe with several processes at once.
 */
export async function bootstrap(db: Kysely<Database>, bootstrapToken: string | undefined): Promise<BootstrapResult> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK})`.execute(trx);
    const any = await trx.selectFrom('organizations').select('id').limit(sql.lit(1)).executeTakeFirst();
    if (any) return { created: false };
    const orgId = newId('org');
    const memberId = newId('mem');
    const token = bootstrapToken ?? generateToken();
    const tokenId = newId('tok');
    await trx.insertInto('organizations').values({ id: orgId, slug: 'default', name: 'Default' }).execute();
    await trx.insertInto('members').values({ id: memberId, org_id: orgId, name: 'Owner', email: null, role: 'owner', slack_user_id: null, tz: null }).execute();
    await trx
      .insertInto('tokens')
      .values({
        id: tokenId,
        org_id: orgId,
        member_id: memberId,
        created_by: memberId,
        name: 'bootstrap owner token',
        token_hash: hashToken(token),
        hint: tokenHint(token),
        scopes: [...SCOPES],
        agent: false,
        expires_at: null,
      })
      .execute();
    const owner = { orgId, memberId, tokenId };
    return bootstrapToken ? { created: true, owner } : { created: true, owner, generatedToken: token };
  });
}

/** What the first-start sign-in link gives: what the owner token has; its session ends with that token (contract §9). */
export function ownerLinkLimits(ownerTokenId: string): LinkLimits {
  return { tokenId: ownerTokenId, scopes: [...SCOPES], ceiling: null };
}
