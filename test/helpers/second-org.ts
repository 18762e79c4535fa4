import type { Kysely } from 'kysely';
import type { Database, Role } from '../../src/db/schema.js';
import { SCOPES, type Scope } from '../../src/domain/context.js';
import { newId } from '../../src/domain/ids.js';
import { generateToken, hashToken, tokenHint } from '../../src/domain/token-format.js';

export interface OtherOrg {
  orgId: string;
  memberId: string;
  /** A token of the new organization's member. */
  token: string;
}

export interface OtherOrgOptions {
  slug?: string;
  role?: Role;
  scopes?: Scope[];
}

/**
 * A second organization with one member and a token, written straight into the database
 * (the API has no way to create organizations). Use it to prove that one organization
 * never sees another's things.
 */
export async function createSecondOrg(db: Kysely<Database>, options: OtherOrgOptions = {}): Promise<OtherOrg> {
  const orgId = newId('org');
  const memberId = newId('mem');
  const token = generateToken();
  const slug = options.slug ?? `other-${orgId.slice(4, 12)}`;
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('organizations').values({ id: orgId, slug, name: `Other ${slug}` }).execute();
    await trx
      .insertInto('members')
      .values({ id: memberId, org_id: orgId, name: 'Other owner', email: null, role: options.role ?? 'owner', slack_user_id: null, tz: null })
      .execute();
    await trx
      .insertInto('tokens')
      .values({
        id: newId('tok'),
        org_id: orgId,
        member_id: memberId,
        created_by: memberId,
        name: 'second org token',
        token_hash: hashToken(token),
        hint: tokenHint(token),
        scopes: [...(options.scopes ?? SCOPES)],
        agent: false,
        expires_at: null,
      })
      .execute();
  });
  return { orgId, memberId, token };
}
