import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope } from './helpers/envelope.js';
import { member, token, type Fields } from './helpers/factories.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/**
 * A card starts in the column it is created in (createCard's `workflow_status`), in one write,
 * judged like the move there; `listBoardMoves` says, per state, where a caller may put a card
 * of a board, by the same rule, so a board shows its gate without asking about a card.
 */

const STATES = ['backlog', 'in_progress', 'in_review', 'done'] as const;

let t: TestServer;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestServer();
  expect((await t.api('POST', '/v1/boards', { body: { name: 'Gated', slug: 'gated', ref_prefix: 'GAT', gated: true } })).status).toBe(201);
  expect((await t.api('POST', '/v1/boards', { body: { name: 'Open', slug: 'open', ref_prefix: 'OPN' } })).status).toBe(201);
  const viewer = await member(t, { name: 'Vera', role: 'viewer' });
  const make = async (body: Partial<Fields<'/tokens'>>) => (await token(t, { name: 'caller', ...body })).token;
  tokens.human = t.token;
  tokens.agent = await make({ scopes: ['read', 'write'], agent: true });
  tokens['read-only'] = await make({ scopes: ['read'] });
  tokens.viewer = await make({ scopes: ['read', 'write'], member_id: viewer.id });
});
afterAll(async () => t?.close());

const cardCount = async () => Number((await t.database!.query('select count(*)::int as n from cards'))[0].n);

describe('createCard in a column', () => {
  it('creates a card straight into the state asked for, in one write, replayed for a repeated Idempotency-Key', async () => {
    const before = await cardCount();
    const headers = { 'idempotency-key': 'create-in-review-1' };
    const first = await t.api('POST', '/v1/cards', { body: { board: 'open', title: 'Straight to review', workflow_status: 'in_review' }, headers });
    expect(first.status, first.text).toBe(201);
    expect(first.body.workflow_status).toBe('in_review');
    const again = await t.api('POST', '/v1/cards', { body: { board: 'open', title: 'Straight to review', workflow_status: 'in_review' }, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect(await cardCount()).toBe(before + 1);
    expect((await t.api('GET', `/v1/cards/${first.body.ref}`)).body.workflow_status).toBe('in_review');
    // Without one, a card still starts in backlog.
    expect((await t.api('POST', '/v1/cards', { body: { board: 'open', title: 'Plain' } })).body.workflow_status).toBe('backlog');
  });

  it('refuses an agent creating into done on a gated board, as the move is refused, and creates nothing', async () => {
    const before = await cardCount();
    const refused = await t.api('POST', '/v1/cards', { token: tokens.agent, body: { board: 'gated', title: 'Agent says done', workflow_status: 'done' } });
    expectEnvelope(refused, 403, 'gated_move_requires_human');
    expect(await cardCount()).toBe(before);
    // The refused creation gave its number back: the next card takes it.
    const next = await t.api('POST', '/v1/cards', { token: tokens.agent, body: { board: 'gated', title: 'Agent starts it', workflow_status: 'in_progress' } });
    expect(next.status).toBe(201);
    const human = await t.api('POST', '/v1/cards', { body: { board: 'gated', title: 'Human says done', workflow_status: 'done' } });
    expect(human.status).toBe(201);
    expect(human.body.workflow_status).toBe('done');
    expect(Number(human.body.ref.split('-')[1])).toBe(Number(next.body.ref.split('-')[1]) + 1);
  });

  it('refuses an unknown state with a field error', async () => {
    const res = await t.api('POST', '/v1/cards', { body: { board: 'open', title: 'Nowhere', workflow_status: 'shipped' } });
    expectEnvelope(res, 422, 'validation_failed');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['workflow_status']);
  });
});

describe('listBoardMoves', () => {
  it('says per state where each caller may put a card of the board, exactly as createCard in that state answers', async () => {
    const seen: Record<string, Record<string, Record<string, string | null>>> = {};
    for (const board of ['gated', 'open']) {
      for (const [name, token] of Object.entries(tokens)) {
        const moves = await t.api('GET', `/v1/boards/${board}/moves`, { token });
        expect(moves.status, moves.text).toBe(200);
        expect(moves.body.data.map((m: { workflow_status: string }) => m.workflow_status)).toEqual(STATES);
        const codes: Record<string, string | null> = {};
        for (const m of moves.body.data as { workflow_status: string; allowed: boolean; code: string | null }[]) {
          codes[m.workflow_status] = m.code;
          const created = await t.api('POST', '/v1/cards', { token, body: { board, title: `${name} into ${m.workflow_status}`, workflow_status: m.workflow_status } });
          expect(created.status === 201, `${name} on ${board} into ${m.workflow_status}: ${created.text}`).toBe(m.allowed);
          if (!m.allowed) expect(created.body.code).toBe(m.code);
        }
        (seen[board] ??= {})[name] = codes;
      }
    }
    const all = (code: string | null) => Object.fromEntries(STATES.map((s) => [s, code]));
    expect(seen.gated!.human).toEqual(all(null));
    expect(seen.gated!.agent).toEqual({ ...all(null), done: 'gated_move_requires_human' });
    expect(seen.open!.agent).toEqual(all(null));
    expect(seen.gated!.viewer).toEqual(all('forbidden_role'));
    expect(seen.gated!['read-only']).toEqual(all('insufficient_scope'));
  });

  it('answers 404 for a board that is not there', async () => {
    expectEnvelope(await t.api('GET', '/v1/boards/nope/moves'), 404, 'board_not_found');
  });
});
