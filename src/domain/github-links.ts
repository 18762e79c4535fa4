import { z } from 'zod';
import type { GithubLinkState } from '../db/schema.js';
import { findCard } from './card-refs.js';
import { cardKeyInput } from './cards.js';
import type { Ctx } from './context.js';
import { toIso } from './time.js';

export const LINK_STATES = ['open', 'draft', 'merged', 'closed'] as const satisfies readonly GithubLinkState[];

export const cardLinkSchema = z.object({
  kind: z.literal('github_pull_request'),
  url: z.string().describe("The pull request's page on GitHub"),
  repository: z.string().describe('Full name, owner/repo'),
  number: z.number().int(),
  title: z.string(),
  state: z.enum(LINK_STATES).describe('open, draft, merged or closed, as of the latest update GitHub sent'),
  author_login: z.string().nullable(),
  updated_at: z.string().describe("The pull request's own updated_at, as GitHub last sent it"),
});
export type CardLink = z.infer<typeof cardLinkSchema>;

export const cardLinksSchema = z.object({ data: z.array(cardLinkSchema) });
export type CardLinks = z.infer<typeof cardLinksSchema>;

/**
 * The pull requests that name a card (contract §12), most recently updated first.
 *
 * ```sql
 * select repository, number, url, title, state, author_login, updated_at from github_links
 * where org_id = $1 and card_id = $2 order by updated_at desc, repository, number
 * ```
 */
export async function listCardLinks(ctx: Ctx, input: z.infer<typeof cardKeyInput>): Promise<CardLinks> {
  const card = await findCard(ctx.db, ctx.principal.orgId, input.id);
  const rows = await ctx.db
    .selectFrom('github_links')
    .select(['repository', 'number', 'url', 'title', 'state', 'author_login', 'updated_at'])
    .where('org_id', '=', ctx.principal.orgId)
    .where('card_id', '=', card.id)
    .orderBy('updated_at', 'desc')
    .orderBy('repository')
    .orderBy('number')
    .execute();
  return {
    data: rows.map((r) => ({
      kind: 'github_pull_request' as const,
      url: r.url,
      repository: r.repository,
      number: r.number,
      title: r.title,
      state: r.state,
      author_login: r.author_login,
      updated_at: toIso(r.updated_at),
    })),
  };
}
