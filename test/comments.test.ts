import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { board, card, memberWithToken, token, type Someone } from './helpers/factories.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/** Card descriptions and comments (contract §11) over /v1, with their events (§10). */

let t: TestServer;
/** The app's clock: every reading is 1 ms later, so the order of writes is the order of instants. */
let now = new Date('2026-04-01T09:00:00Z');
const clock = () => (now = new Date(now.getTime() + 1));

let ada: Someone;
let bob: Someone;
let viewer: Someone;
let slug: string;

async function ok(method: string, path: string, body?: unknown, as?: string) {
  const res = await t.api(method, path, { body, token: as });
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res.body;
}

/** Every page of a card's comments, following the cursor. */
async function allComments(ref: string, limit: number) {
  const all: any[] = [];
  let cursor: string | undefined;
  do {
    const page = await ok('GET', `/v1/cards/${ref}/comments?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    all.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return all;
}

beforeAll(async () => {
  t = await startTestServer({}, { clock });
  ada = await memberWithToken(t, { name: 'Ada Lovelace' });
  bob = await memberWithToken(t, { name: 'Bob' });
  viewer = await memberWithToken(t, { name: 'Vi Ewer', role: 'viewer' }, { scopes: ['read'] });
  slug = (await board(t, { name: 'Talk', slug: 'talk', ref_prefix: 'TLK' })).slug;
});
afterAll(async () => t?.close());

describe('a card’s description', () => {
  it('is set on creation, changed and cleared by the PATCH, read everywhere a card is, with card.updated and its changes', async () => {
    const made = await ok('POST', '/v1/cards', { board: slug, title: 'Described', description: '# Plan\n\n- one\n- two' });
    expect(made.description).toBe('# Plan\n\n- one\n- two');
    expect((await ok('GET', `/v1/cards/${made.ref}`)).description).toBe('# Plan\n\n- one\n- two');
    const listed = (await ok('GET', `/v1/cards?board=${slug}`)).data.find((c: any) => c.id === made.id);
    expect(listed.description).toBe('# Plan\n\n- one\n- two');
    expect((await card(t, { board: slug })).description).toBeNull();

    await ok('PATCH', `/v1/cards/${made.ref}`, { description: 'Shorter' });
    const cleared = await ok('PATCH', `/v1/cards/${made.ref}`, { description: null });
    expect(cleared.description).toBeNull();
    const history = (await ok('GET', `/v1/cards/${made.ref}/activity?type=card.updated`)).data;
    expect(history.map((e: any) => e.changes)).toEqual([{ description: ['Shorter', null] }, { description: ['# Plan\n\n- one\n- two', 'Shorter'] }]);
  });

  it('counts code points: 20,000 astral characters fit, one more is 422, whitespace only is 422, nothing changed', async () => {
    const made = await card(t, { board: slug, description: 'kept' });
    const full = '😀'.repeat(20_000);
    expect((await ok('PATCH', `/v1/cards/${made.id}`, { description: full })).description).toBe(full);
    for (const description of ['😀'.repeat(20_001), ' \n\t ', 'bell \u0007']) {
      const res = await t.api('PATCH', `/v1/cards/${made.id}`, { body: { description } });
      expect(res.status).toBe(422);
      expect(res.body.errors[0].field).toBe('description');
      expect(res.text).not.toMatch(/select|stack|\/work\//i);
    }
    expect((await ok('GET', `/v1/cards/${made.id}`)).description).toBe(full);
    expect((await t.api('POST', '/v1/cards', { body: { board: slug, title: 'x', description: '' } })).status).toBe(422);
  });
});

describe('comments', () => {
  it('are added, listed oldest first in cursor pages, with the author and agent flag', async () => {
    const c = await card(t, { board: slug });
    const agent = await token(t, { name: 'ada bot', agent: true, member_id: ada.id });
    const written: string[] = [];
    for (let i = 0; i < 7; i++) {
      const by = i % 3 === 2 ? agent.token : i % 2 ? bob.token : ada.token;
      const comment = await ok('POST', `/v1/cards/${c.ref}/comments`, { body: `comment ${i}` }, by);
      expect(comment.id).toMatch(/^cmt_/);
      written.push(comment.id);
    }
    const listed = await allComments(c.ref, 3);
    expect(listed.map((x) => x.id)).toEqual(written);
    expect(listed[0]).toEqual({
      id: written[0],
      card_id: c.id,
      author: { member_id: ada.id, name: 'Ada Lovelace', agent: false },
      body: 'comment 0',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(listed[2].author).toEqual({ member_id: ada.id, name: 'Ada Lovelace', agent: true });
    expect(listed[1].author.member_id).toBe(bob.id);
    // A cursor of another card's list is refused.
    const other = await card(t, { board: slug });
    const page = await ok('GET', `/v1/cards/${c.ref}/comments?limit=1`);
    expect((await t.api('GET', `/v1/cards/${other.ref}/comments?cursor=${encodeURIComponent(page.next_cursor)}`)).status).toBe(400);
    expect((await t.api('GET', `/v1/cards/TLK-9999/comments`)).body.code).toBe('card_not_found');
  });

  it('refuse bad bodies with 422 and write nothing', async () => {
    const c = await card(t, { board: slug });
    for (const body of ['', '   \n ', 'x'.repeat(10_001), '😀'.repeat(10_001)]) {
      const res = await t.api('POST', `/v1/cards/${c.ref}/comments`, { body: { body } });
      expect(res.status, JSON.stringify(body).slice(0, 20)).toBe(422);
      expect(res.body.errors[0].field).toBe('body');
    }
    expect((await t.api('POST', `/v1/cards/${c.ref}/comments`, { body: { body: 'hi', author: 'x' } })).status).toBe(422);
    expect((await ok('POST', `/v1/cards/${c.ref}/comments`, { body: '😀'.repeat(10_000) })).body).toHaveLength(20_000);
    expect((await allComments(c.ref, 100)).length).toBe(1);
    expect((await ok('GET', `/v1/cards/${c.ref}/activity?type=comment.`)).data.length).toBe(1);
  });

  it('store mentions of @name and @mem_… as @mem_…, leaving unknown names, e-mail addresses and code as written', async () => {
    const c = await card(t, { board: slug });
    const body = `@Ada Lovelace and @bob, see @${viewer.id}; not @nobody, not ada@example.com, not \`@Bob\``;
    const made = await ok('POST', `/v1/cards/${c.ref}/comments`, { body }, bob.token);
    expect(made.body).toBe(`@${ada.id} and @${bob.id}, see @${viewer.id}; not @nobody, not ada@example.com, not \`@Bob\``);
    const edited = await ok('PATCH', `/v1/cards/${c.ref}/comments/${made.id}`, { body: 'over to @ada' }, bob.token);
    expect(edited.body).toBe(`over to @${ada.id}`);
  });

  it('are edited by their author only (their agent token too); deleted by the author, owners and admins', async () => {
    const c = await card(t, { board: slug });
    const agent = await token(t, { name: 'bob bot', agent: true, member_id: bob.id });
    const byAgent = await ok('POST', `/v1/cards/${c.ref}/comments`, { body: 'written by the agent' }, agent.token);
    // The human edits what their own agent token wrote.
    const edited = await ok('PATCH', `/v1/cards/${c.ref}/comments/${byAgent.id}`, { body: 'fixed by Bob' }, bob.token);
    expect(edited).toMatchObject({ body: 'fixed by Bob', author: { member_id: bob.id, agent: true } });
    expect(edited.updated_at > edited.created_at).toBe(true);

    for (const as of [ada.token, t.token]) {
      const res = await t.api('PATCH', `/v1/cards/${c.ref}/comments/${byAgent.id}`, { body: { body: 'not yours' }, token: as });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('not_comment_author');
    }
    const refused = await t.api('DELETE', `/v1/cards/${c.ref}/comments/${byAgent.id}`, { token: ada.token });
    expect([refused.status, refused.body.code]).toEqual([403, 'not_comment_author']);
    const byViewer = await t.api('POST', `/v1/cards/${c.ref}/comments`, { body: { body: 'hi' }, token: viewer.token });
    expect(byViewer.status).toBe(403);
    const blank = await t.api('PATCH', `/v1/cards/${c.ref}/comments/${byAgent.id}`, { body: { body: '  ' }, token: bob.token });
    expect(blank.status).toBe(422);
    expect((await allComments(c.ref, 10)).map((x) => x.body)).toEqual(['fixed by Bob']);

    // Another card's path does not reach it.
    const other = await card(t, { board: slug });
    expect((await t.api('DELETE', `/v1/cards/${other.ref}/comments/${byAgent.id}`)).body.code).toBe('comment_not_found');
    // The owner deletes anyone's.
    expect((await t.api('DELETE', `/v1/cards/${c.ref}/comments/${byAgent.id}`)).status).toBe(204);
    const mine = await ok('POST', `/v1/cards/${c.ref}/comments`, { body: 'mine' }, ada.token);
    expect((await t.api('DELETE', `/v1/cards/${c.ref}/comments/${mine.id}`, { token: ada.token })).status).toBe(204);
    expect(await allComments(c.ref, 10)).toEqual([]);
  });

  it('record comment.created, updated and deleted, with the comment as listComments answers it, in the card’s activity', async () => {
    const c = await card(t, { board: slug });
    const made = await ok('POST', `/v1/cards/${c.ref}/comments`, { body: 'hello @bob' }, ada.token);
    await ok('PATCH', `/v1/cards/${c.ref}/comments/${made.id}`, { body: 'hello @Ada Lovelace' }, ada.token);
    await ok('PATCH', `/v1/cards/${c.ref}`, { workflow_status: 'in_progress' });
    await t.api('DELETE', `/v1/cards/${c.ref}/comments/${made.id}`, { token: ada.token });

    const activity = (await ok('GET', `/v1/cards/${c.ref}/activity`)).data;
    expect(activity.map((e: any) => e.type)).toEqual(['comment.deleted', 'card.moved', 'comment.updated', 'comment.created', 'card.created']);
    const [deleted, , updated, created] = activity;
    expect(created.subject).toEqual({ type: 'comment', id: made.id, ref: c.ref });
    expect(created.data).toEqual(made);
    expect(created.data.body).toBe(`hello @${bob.id}`);
    expect(created.actor).toMatchObject({ member_id: ada.id, name: 'Ada Lovelace', agent: false, face: 'api' });
    expect(updated.changes).toEqual({ body: [`hello @${bob.id}`, `hello @${ada.id}`] });
    expect(deleted).toMatchObject({ data: null, changes: {}, subject: { type: 'comment', id: made.id, ref: c.ref } });
    const bySubject = (await ok('GET', `/v1/events?subject=${c.id}&type=comment.`)).data;
    expect(bySubject.map((e: any) => e.type)).toEqual(['comment.deleted', 'comment.updated', 'comment.created']);

    // A refused write records nothing.
    await t.api('PATCH', `/v1/cards/${c.ref}/comments/${made.id}`, { body: { body: 'gone' }, token: ada.token });
    expect((await ok('GET', `/v1/cards/${c.ref}/activity`)).data.length).toBe(activity.length);
  });

  it('go with their card, each with comment.deleted', async () => {
    const c = await card(t, { board: slug });
    const one = await ok('POST', `/v1/cards/${c.ref}/comments`, { body: 'one' });
    await t.api('DELETE', `/v1/cards/${c.id}`);
    const activity = (await ok('GET', `/v1/events?subject=${c.id}`)).data;
    expect(activity.map((e: any) => [e.type, e.subject.id])).toEqual([
      ['comment.deleted', one.id],
      ['card.deleted', c.id],
      ['comment.created', one.id],
      ['card.created', c.id],
    ]);
  });
});
