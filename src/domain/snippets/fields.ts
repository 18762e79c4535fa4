import { z } from 'zod';
import { AppError } from '../errors.js';
import { anyText, id, label, pageQuery } from '../fields.js';
import { SNIPPET_TYPES, SNIPPET_VISIBILITIES as VISIBILITIES } from '../../vocabulary.js';

/** Input and output shapes of snippets, and the limits a person would expect of them. */

export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_NAME = 200;
export const MAX_CATEGORY = 200;
export const MAX_TAG = 50;
export const MAX_TAGS = 20;
export const SEARCH_MAX_LENGTH = 1000;

const name = label(MAX_NAME);
const category = label(MAX_CATEGORY).describe('Free path-like label, such as ops/deploy');
const tag = label(MAX_TAG);
const tags = z.array(tag).max(MAX_TAGS, `must have at most ${MAX_TAGS} items`);
/** The size limit (1 MiB of UTF-8) is checked by the domain, answering 413 rather than 422. */
const body = z
  .string()
  .min(1, 'must not be empty')
  .refine((s) => !s.includes('\u0000'), 'must not contain NUL characters')
  .describe('The content, at most 1 MiB of UTF-8');

/** `id` of a snippet in a path: its id (snp_…) or, as well, its slug. */
export const snippetRef = id('snp').describe('Snippet id (snp_…) or slug');

export const createSnippetInput = z.object({
  type: z.enum(SNIPPET_TYPES),
  name,
  body,
  category: category.optional(),
  tags: tags.optional(),
  visibility: z.enum(VISIBILITIES).default('team'),
});

export const updateSnippetInput = z.object({
  id: snippetRef,
  body: body.optional(),
  name: name.optional(),
  category: category.nullable().optional(),
  tags: tags.optional(),
  visibility: z.enum(VISIBILITIES).optional(),
});

export const snippetRefInput = z.object({ id: snippetRef });

export const listSnippetsInput = z.object({
  ...pageQuery,
  type: z.enum(SNIPPET_TYPES).optional(),
  tag: tag.optional().describe('Only snippets carrying this tag'),
  q: z
    .string()
    // A search, not a document: Postgres parses a query of some ten thousand words past its stack
    // depth (a 500 that no retry mends), and no search box needs more than a few hundred.
    .max(SEARCH_MAX_LENGTH, `must be at most ${SEARCH_MAX_LENGTH} characters long`)
    .register(anyText, {})
    .optional()
    .describe('Full-text search over name, category, tags and body (web search syntax: "phrase", or, -word); the last word matches as a prefix'),
});

export const listSnippetVersionsInput = z.object({ id: snippetRef, ...pageQuery });

export const snippetVersionRefInput = z.object({
  id: snippetRef,
  n: z.number().int().min(1).max(2_147_483_647).describe('Version number, from 1'),
});

export const snippetSchema = z.object({
  id: z.string(),
  org_id: z.string(),
  type: z.enum(SNIPPET_TYPES),
  name: z.string(),
  slug: z.string(),
  category: z.string().nullable(),
  tags: z.array(z.string()),
  visibility: z.enum(VISIBILITIES),
  version: z.number().int(),
  public_url: z.string().nullable().describe('Revocable public link; 404 once rotated or deleted'),
  body: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Snippet = z.infer<typeof snippetSchema>;

export const snippetVersionSchema = z.object({
  snippet_id: z.string(),
  version: z.number().int(),
  type: z.enum(SNIPPET_TYPES),
  name: z.string().describe('The name as it was at this version'),
  category: z.string().nullable(),
  tags: z.array(z.string()),
  body: z.string(),
  created_at: z.string(),
});
export type SnippetVersion = z.infer<typeof snippetVersionSchema>;

export const snippetLinkSchema = z.object({ public_url: z.string() });

export function requireBodySize(text: string): void {
  if (Buffer.byteLength(text, 'utf8') > MAX_BODY_BYTES) {
    throw new AppError('payload_too_large', 413, 'A snippet body may be at most 1 MiB (1,048,576 bytes of UTF-8).');
  }
}

/** Tags keep their first spelling and order; repeats are dropped. */
export function uniqueTags(list: readonly string[] | undefined): string[] {
  return [...new Set(list ?? [])];
}
