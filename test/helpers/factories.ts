import type { paths } from '../../web/src/api/openapi.js';
import { must, type Schemas, type TypedClient } from './typed-client.js';

/**
 * Things a test needs, each made through the real `/v1` operation (so every rule applies, as
 * for any client) with defaults a test may override field by field. Each factory acts as the
 * owner unless `as` names another caller's token, and fails the set-up with the answer's
 * status and envelope when the server refuses. For a refusal under test, call the client.
 */

/** The server a factory writes to: `startTestServer()`'s answer, or anything with its typed clients. */
export interface Target {
  as(token: string | null): TypedClient;
  token: string;
}

export interface By {
  /** The caller's token; the bootstrap owner's when absent. */
  as?: string;
}

/** The JSON body that `POST <path>` takes: `Fields<'/members'>` is createMember's input. */
export type Fields<P extends keyof paths> = paths[P] extends { post: { requestBody: { content: { 'application/json': infer B } } } } ? B : never;
export type Role = NonNullable<Fields<'/members'>['role']>;
export type Scope = NonNullable<Fields<'/tokens'>['scopes']>[number];

/** Numbers the defaults, so two things made with defaults never collide (names, slugs, refs). */
let made = 0;
const next = () => ++made;

const caller = (t: Target, by: By) => t.as(by.as ?? t.token);

/** A member of the bootstrap organization: role `member` unless given. */
export async function member(t: Target, fields: Partial<Fields<'/members'>> = {}, by: By = {}): Promise<Schemas['Member']> {
  const body = { name: `Member ${next()}`, role: 'member' as const, ...fields };
  return must(await caller(t, by).POST('/members', { body }), 'createMember');
}

/** A token (`read` and `write` unless given), of the caller's own member unless `member_id` names another. */
export async function token(t: Target, fields: Partial<Fields<'/tokens'>> = {}, by: By = {}): Promise<Schemas['CreatedToken']> {
  const body = { name: `token ${next()}`, scopes: ['read' as const, 'write' as const], ...fields };
  return must(await caller(t, by).POST('/tokens', { body }), 'createToken');
}

export interface Someone {
  /** The member's id. */
  id: string;
  /** The secret of a token of their own. */
  token: string;
  member: Schemas['Member'];
}

/**
 * A member with a token of their own: `memberFields` for the member (role `member` unless
 * given), `tokenFields` for the token (`read` and `write` unless given; named after the member).
 */
export async function memberWithToken(t: Target, memberFields: Partial<Fields<'/members'>> = {}, tokenFields: Partial<Fields<'/tokens'>> = {}, by: By = {}): Promise<Someone> {
  const m = await member(t, memberFields, by);
  const own = await token(t, { name: `${m.name} token`, ...tokenFields, member_id: m.id }, by);
  return { id: m.id, token: own.token, member: m };
}

/** A board (slug and ref prefix derived from the name unless given). */
export async function board(t: Target, fields: Partial<Fields<'/boards'>> = {}, by: By = {}): Promise<Schemas['Board']> {
  const n = next();
  const body = { name: `Board ${n}`, ...fields };
  return must(await caller(t, by).POST('/boards', { body }), 'createBoard');
}

/** A card on `fields.board` (a board's id, slug or ref prefix, as `createCard` takes it). */
export async function card(t: Target, fields: Partial<Fields<'/cards'>> & Pick<Fields<'/cards'>, 'board'>, by: By = {}): Promise<Schemas['Card']> {
  const body = { title: `Card ${next()}`, ...fields };
  return must(await caller(t, by).POST('/cards', { body }), 'createCard');
}

/** A todo of the caller's. */
export async function todo(t: Target, fields: Partial<Fields<'/todos'>> = {}, by: By = {}): Promise<Schemas['Todo']> {
  const body = { title: `Todo ${next()}`, ...fields };
  return must(await caller(t, by).POST('/todos', { body }), 'createTodo');
}

/** A milestone (a sprint unless given). */
export async function milestone(t: Target, fields: Partial<Fields<'/milestones'>> = {}, by: By = {}): Promise<Schemas['Milestone']> {
  const n = next();
  const body = { ref: `m${n}`, name: `Milestone ${n}`, ...fields };
  return must(await caller(t, by).POST('/milestones', { body }), 'createMilestone');
}

/** A snippet (plain text, private, unless given). */
export async function snippet(t: Target, fields: Partial<Fields<'/snippets'>> = {}, by: By = {}): Promise<Schemas['Snippet']> {
  const n = next();
  const body = { type: 'txt' as const, name: `Snippet ${n}`, body: `Body ${n}`, ...fields };
  return must(await caller(t, by).POST('/snippets', { body }), 'createSnippet');
}
