import pg from 'pg';
import { SCOPES } from '../../src/domain/context.js';
import { newId } from '../../src/domain/ids.js';
import { generateToken, hashToken, tokenHint } from '../../src/domain/token-format.js';

/**
 * A second organization with an owner and an all-scope token, written straight into the
 * test database (the API has no way to make organizations), for isolation tests.
 */
export async function createOtherOrg(databaseUrl: string): Promise<{ orgId: string; memberId: string; token: string }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const orgId = newId('org');
    const memberId = newId('mem');
    const token = generateToken();
    await client.query('insert into organizations (id, slug, name) values ($1, $2, $3)', [orgId, `other-${orgId.slice(4, 10)}`, 'Other']);
    await client.query(`insert into members (id, org_id, name, role) values ($1, $2, 'Olga', 'owner')`, [memberId, orgId]);
    await client.query(
      `insert into tokens (id, org_id, member_id, created_by, name, token_hash, hint, scopes, agent)
       values ($1, $2, $3, $3, 'other', $4, $5, $6, false)`,
      [newId('tok'), orgId, memberId, hashToken(token), tokenHint(token), [...SCOPES]],
    );
    return { orgId, memberId, token };
  } finally {
    await client.end();
  }
}
