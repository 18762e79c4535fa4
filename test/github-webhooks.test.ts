import { sign } from '@octokit/webhooks-methods';
import examples from '@octokit/webhooks-examples';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { branchName } from '../src/domain/branch-name.js';
import { sql } from 'kysely';
import { board, card, member } from './helpers/factories.js';
import { createSecondOrg } from './helpers/second-org.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const SECRET = 'gh-test-secret';
let t: TestServer;

// GitHub's documented example payloads (npm @octokit/webhooks-examples), adapted with our refs.
// The package's types name its default export as the module (no esModuleInterop shape); its value is the list.
const definitions = examples as unknown as { name: string; examples: any[] }[];
const prExamples = definitions.find((e) => e.name === 'pull_request')!.examples;
const exampleFor = (action: string) => structuredClone(prExamples.find((e) => e.action === action) ?? prExamples.find((e) => e.action === 'closed'));

let prNumber = 100;
interface Pr {
  number: number;
  branch?: string;
  title?: string;
  body?: string | null;
}

/** A pull_request payload of `action` from GitHub's examples, naming our refs. */
function prPayload(action: string, pr: Pr, extra: { updatedAt?: string; draft?: boolean; merged?: boolean; mergedBy?: { login: string; type: string } | null; sender?: { login: string; type: string } } = {}) {
  const p = exampleFor(action);
  p.action = action;
  p.number = pr.number;
  Object.assign(p.pull_request, {
    number: pr.number,
    html_url: `https://github.com/acme/web/pull/${pr.number}`,
    title: pr.title ?? 'A change',
    body: pr.body ?? null,
    draft: extra.draft ?? false,
    updated_at: extra.updatedAt ?? new Date().toISOString(),
    state: action === 'closed' ? 'closed' : 'open',
    merged: extra.merged ?? false,
    merged_at: extra.merged ? new Date().toISOString() : null,
    merged_by: extra.merged ? (extra.mergedBy === undefined ? { ...p.sender, login: 'octo-ann', type: 'User' } : extra.mergedBy) : null,
  });
  p.pull_request.head.ref = pr.branch ?? 'some-branch';
  p.repository.full_name = 'acme/web';
  if (extra.sender) p.sender = { ...p.sender, ...extra.sender };
  return p;
}

async function deliver(payload: unknown, options: { event?: string; id?: string; secret?: string; body?: string } = {}) {
  const body = options.body ?? JSON.stringify(payload);
  const signature = await sign(options.secret ?? SECRET, body);
  const res = await fetch(`${t.url}/github/webhooks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': options.event ?? 'pull_request',
      'x-github-delivery': options.id ?? randomUUID(),
      'x-hub-signature-256': signature,
    },
    body,
  });
  return { status: res.status, text: await res.text() };
}

async function status(ref: string) {
  return (await t.api('GET', `/v1/cards/${ref}`)).body.workflow_status as string;
}

async function eventsOf(ref: string) {
  return t.server.db.db.selectFrom('events').selectAll().where('subject_ref', '=', ref).orderBy('seq').execute();
}

beforeAll(async () => {
  t = await startTestServer({ GITHUB_WEBHOOK_SECRET: SECRET, GITHUB_AGENT_LOGINS: 'coder-agent, Other-Agent' });
});
afterAll(async () => t?.close());

describe('POST /github/webhooks: the signature, and deliveries that do nothing', () => {
  it('answers ping 200 and events or actions it does not act on with 2xx, changing nothing', async () => {
    const b = await board(t, { name: 'Quiet' });
    const c = await card(t, { board: b.id });
    expect((await deliver({ zen: 'Keep it logically awesome.', hook_id: 1 }, { event: 'ping' })).status).toBe(200);
    expect((await deliver({ action: 'opened', issue: {} }, { event: 'issues' })).status).toBe(204);
    expect((await deliver(prPayload('labeled', { number: ++prNumber, branch: c.ref }))).status).toBe(204);
    expect(await status(c.ref)).toBe('backlog');
    const seen = await t.server.db.db.selectFrom('github_deliveries').select('delivery_id').execute();
    expect(seen).toEqual([]);
  });

  it('refuses a wrong secret, a missing signature and a truncated body with 401, doing nothing', async () => {
    const b = await board(t, { name: 'Signed' });
    const c = await card(t, { board: b.id });
    const payload = prPayload('opened', { number: ++prNumber, branch: `${c.ref.toLowerCase()}-signed` });
    const wrong = await deliver(payload, { secret: 'not-the-secret' });
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.text)).toMatchObject({ code: 'invalid_github_signature', http_status: 401 });
    const body = JSON.stringify(payload);
    const truncated = await fetch(`${t.url}/github/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': randomUUID(), 'x-hub-signature-256': await sign(SECRET, body) },
      body: body.slice(0, body.length - 10),
    });
    expect(truncated.status).toBe(401);
    const unsigned = await fetch(`${t.url}/github/webhooks`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request' }, body });
    expect(unsigned.status).toBe(401);
    expect(await status(c.ref)).toBe('backlog');
    expect((await t.api('GET', `/v1/cards/${c.ref}/links`)).body.data).toEqual([]);
  });

  it('answers 404 when GITHUB_WEBHOOK_SECRET is unset', async () => {
    const other = await startTestServer({});
    try {
      const res = await fetch(`${other.url}/github/webhooks`, { method: 'POST', headers: { 'x-hub-signature-256': await sign(SECRET, '{}') }, body: '{}' });
      expect(res.status).toBe(404);
    } finally {
      await other.close();
    }
  });
});

describe('pull requests link and move cards (contract §12)', () => {
  it('moves the cards it closes on opened, links the ones it mentions, and names the member by github_login', async () => {
    const b = await board(t, { name: 'Web' });
    const branchCard = await card(t, { board: b.id, title: 'Fix login' });
    const fixed = await card(t, { board: b.id });
    const mentioned = await card(t, { board: b.id });
    const ann = await member(t, { name: 'Ann Octo', github_login: 'Octo-Ann' } as never);
    const n = ++prNumber;
    const res = await deliver(prPayload('opened', { number: n, branch: `feature/${branchCard.ref}`, title: `Login (${mentioned.ref})`, body: `Fixes ${fixed.ref}\n\nfixes the bug in ${mentioned.ref}` }, { sender: { login: 'octo-ann', type: 'User' } }));
    expect(res.status, res.text).toBe(200);
    expect(await status(branchCard.ref)).toBe('in_progress');
    expect(await status(fixed.ref)).toBe('in_progress');
    expect(await status(mentioned.ref)).toBe('backlog');
    const links = (await t.api('GET', `/v1/cards/${mentioned.ref}/links`)).body.data;
    expect(links).toEqual([
      { kind: 'github_pull_request', url: `https://github.com/acme/web/pull/${n}`, repository: 'acme/web', number: n, title: `Login (${mentioned.ref})`, state: 'open', author_login: expect.any(String), updated_at: expect.any(String) },
    ]);
    const [moved] = (await eventsOf(branchCard.ref)).filter((e) => e.type === 'card.moved');
    expect(moved).toMatchObject({ face: 'github', actor_member_id: ann.id, actor_name: 'Ann Octo', actor_agent: false });
  });

  it('names the login when no member has it (member_id null)', async () => {
    const b = await board(t, { name: 'Anon' });
    const c = await card(t, { board: b.id });
    await deliver(prPayload('opened', { number: ++prNumber, branch: c.ref }, { sender: { login: 'stranger', type: 'User' } }));
    const [moved] = (await eventsOf(c.ref)).filter((e) => e.type === 'card.moved');
    expect(moved).toMatchObject({ face: 'github', actor_member_id: null, actor_name: 'stranger' });
    const listed = await t.api('GET', `/v1/events?subject=${c.ref}&type=card.moved`);
    expect(listed.body.data[0].actor).toEqual({ member_id: null, name: 'stranger', agent: false, face: 'github' });
  });

  it('does nothing twice for a redelivered X-GitHub-Delivery', async () => {
    const b = await board(t, { name: 'Replay' });
    const c = await card(t, { board: b.id });
    const id = randomUUID();
    const payload = prPayload('opened', { number: ++prNumber, branch: c.ref });
    expect((await deliver(payload, { id })).status).toBe(200);
    expect(await status(c.ref)).toBe('in_progress');
    await t.api('PATCH', `/v1/cards/${c.ref}`, { body: { workflow_status: 'backlog' } });
    const again = await deliver(payload, { id });
    expect(again.status).toBe(200);
    expect(JSON.parse(again.text)).toMatchObject({ duplicate: true });
    expect(await status(c.ref)).toBe('backlog');
    expect((await eventsOf(c.ref)).filter((e) => e.type === 'card.moved')).toHaveLength(2);
  });

  it('never moves backwards: review_requested, ready_for_review and opened leave a card further on where it is', async () => {
    const b = await board(t, { name: 'Forward' });
    const c = await card(t, { board: b.id });
    const n = ++prNumber;
    await deliver(prPayload('opened', { number: n, branch: c.ref }, { draft: true }));
    expect(await status(c.ref)).toBe('backlog');
    await deliver(prPayload('ready_for_review', { number: n, branch: c.ref }));
    expect(await status(c.ref)).toBe('in_review');
    await deliver(prPayload('reopened', { number: n, branch: c.ref }));
    expect(await status(c.ref)).toBe('in_review');
    await deliver(prPayload('closed', { number: n, branch: c.ref }, { merged: true }));
    expect(await status(c.ref)).toBe('done');
    await deliver(prPayload('review_requested', { number: n, branch: c.ref }));
    await deliver(prPayload('opened', { number: n, branch: c.ref }));
    expect(await status(c.ref)).toBe('done');
  });

  it('a closed pull request that was not merged only updates the link', async () => {
    const b = await board(t, { name: 'Closed' });
    const c = await card(t, { board: b.id });
    await deliver(prPayload('closed', { number: ++prNumber, branch: c.ref }));
    expect(await status(c.ref)).toBe('backlog');
    expect((await t.api('GET', `/v1/cards/${c.ref}/links`)).body.data[0].state).toBe('closed');
  });

  it('out of order: an older delivery arriving after a newer one changes nothing', async () => {
    const b = await board(t, { name: 'Order' });
    const c = await card(t, { board: b.id });
    const n = ++prNumber;
    await deliver(prPayload('closed', { number: n, branch: c.ref }, { merged: true, updatedAt: '2026-01-02T10:00:00Z' }));
    await t.api('PATCH', `/v1/cards/${c.ref}`, { body: { workflow_status: 'backlog' } });
    await deliver(prPayload('opened', { number: n, branch: c.ref }, { updatedAt: '2026-01-02T09:00:00Z' }));
    expect(await status(c.ref)).toBe('backlog');
    const [link] = (await t.api('GET', `/v1/cards/${c.ref}/links`)).body.data;
    expect(link).toMatchObject({ state: 'merged', updated_at: '2026-01-02T10:00:00.000Z' });
  });

  it('edited re-reads the links: a ref no longer named is unlinked, and nothing moves', async () => {
    const b = await board(t, { name: 'Edit' });
    const first = await card(t, { board: b.id });
    const second = await card(t, { board: b.id });
    const n = ++prNumber;
    await deliver(prPayload('opened', { number: n, title: `About ${first.ref}` }, { updatedAt: '2026-02-01T10:00:00Z' }));
    await deliver(prPayload('edited', { number: n, title: `About ${second.ref}`, body: `Closes ${second.ref}` }, { updatedAt: '2026-02-01T11:00:00Z' }));
    expect((await t.api('GET', `/v1/cards/${first.ref}/links`)).body.data).toEqual([]);
    expect((await t.api('GET', `/v1/cards/${second.ref}/links`)).body.data).toHaveLength(1);
    expect(await status(second.ref)).toBe('backlog');
  });

  it("moves only GITHUB_ORG's cards when a pull request names two organizations' cards", async () => {
    const ours = await board(t, { name: 'Shared prefix', ref_prefix: 'SHR' });
    const mine = await card(t, { board: ours.id });
    const other = await createSecondOrg(t.server.db.db);
    const theirs = t.as(other.token);
    const theirBoard = (await theirs.POST('/boards', { body: { name: 'Theirs', ref_prefix: 'SHR' } })).data!;
    const theirOnly = (await theirs.POST('/boards', { body: { name: 'Only theirs', ref_prefix: 'THR' } })).data!;
    const theirCard = (await theirs.POST('/cards', { body: { board: theirBoard.id, title: 'theirs' } })).data!;
    const theirOther = (await theirs.POST('/cards', { body: { board: theirOnly.id, title: 'theirs too' } })).data!;
    expect(theirCard.ref).toBe(mine.ref);
    await deliver(prPayload('opened', { number: ++prNumber, branch: mine.ref, body: `Fixes ${theirOther.ref}` }));
    expect(await status(mine.ref)).toBe('in_progress');
    expect((await theirs.GET('/cards/{id}', { params: { path: { id: theirCard.id } } })).data!.workflow_status).toBe('backlog');
    expect((await theirs.GET('/cards/{id}', { params: { path: { id: theirOther.id } } })).data!.workflow_status).toBe('backlog');
    expect((await theirs.GET('/cards/{id}/links' as never, { params: { path: { id: theirCard.id } } } as never) as any).data.data).toEqual([]);
  });
});

describe('merges on a gated board (contract §12)', () => {
  it('a human merge moves the card to done', async () => {
    const b = await board(t, { name: 'Gated human', gated: true });
    const c = await card(t, { board: b.id });
    await deliver(prPayload('closed', { number: ++prNumber, branch: c.ref }, { merged: true, mergedBy: { login: 'octo-bob', type: 'User' } }));
    expect(await status(c.ref)).toBe('done');
  });

  it.each([
    ['a Bot account', 'GB', { login: 'dependabot[bot]', type: 'Bot' }],
    ['merged_by null', 'GN', null],
    ['a login of GITHUB_AGENT_LOGINS', 'GA', { login: 'Coder-Agent', type: 'User' }],
  ])('a merge by %s is refused as for an agent token, recorded as card.move_refused', async (_what, prefix, mergedBy) => {
    const b = await board(t, { name: `Gated ${prefix}`, ref_prefix: prefix, gated: true });
    const c = await card(t, { board: b.id });
    const res = await deliver(prPayload('closed', { number: ++prNumber, branch: c.ref }, { merged: true, mergedBy }));
    expect(res.status, res.text).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ refused: [c.ref], moved: [] });
    expect(await status(c.ref)).toBe('backlog');
    const refused = (await eventsOf(c.ref)).filter((e) => e.type === 'card.move_refused');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ face: 'github', actor_agent: true, actor_member_id: null });
    expect((refused[0]!.data as any).refusal).toEqual({ code: 'gated_move_requires_human', workflow_status: 'done' });
    // The link still says merged.
    expect((await t.api('GET', `/v1/cards/${c.ref}/links`)).body.data[0].state).toBe('merged');
  });
});

describe('branch_name and github_login', () => {
  it('every card read carries branch_name, the same from Postgres (lists) as from the rule', async () => {
    const b = await board(t, { name: 'Branches' });
    const titles = ['Sign-up form validates e-mail', 'Crème brûlée — v1.2', '日本語', `Make the sign-up form validate every e-mail address before it is sent`, `a ${'b'.repeat(80)}`, `${'a'.repeat(54)} next`];
    for (const title of titles) {
      const c = await card(t, { board: b.id, title });
      expect(c.branch_name).toBe(branchName(c.ref, title));
      const listed = (await t.api('GET', `/v1/cards?board=${b.id}&limit=100`)).body.data.find((x: any) => x.id === c.id);
      expect(listed.branch_name).toBe(c.branch_name);
    }
    const sqlSide = await sql<{ name: string }>`select card_branch('ENG', 42, 'sign-up-form-validates-e-mail') as name`.execute(t.server.db.db);
    expect(sqlSide.rows[0]!.name).toBe('eng-42-sign-up-form-validates-e-mail');
    // The stored slug follows the title.
    const renamed = await card(t, { board: b.id, title: 'Before' });
    await t.api('PATCH', `/v1/cards/${renamed.ref}`, { body: { title: 'After: the rename!' } });
    const relisted = (await t.api('GET', `/v1/cards?board=${b.id}&limit=100`)).body.data.find((x: any) => x.id === renamed.id);
    expect(relisted.branch_name).toBe(`${renamed.ref.toLowerCase()}-after-the-rename`);
  });

  it('Postgres builds the same branch_name as the rule for random titles (cut at a dash, long words, no letters)', async () => {
    const b = await board(t, { name: 'Branch fuzz', ref_prefix: 'FUZ' });
    const pieces = ['a', 'Bc', 'DEF', '12', '-', ' ', '--', 'é', '日本', '!', 'x'.repeat(25), 'word', 'Z9'];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const titles = Array.from({ length: 60 }, () => Array.from({ length: 1 + Math.floor(random() * 24) }, () => pieces[Math.floor(random() * pieces.length)]).join('').trim() || 'x');
    const made = [];
    for (const title of titles) made.push(await card(t, { board: b.id, title: title.slice(0, 200) }));
    const listed = new Map<string, string>((await t.api('GET', `/v1/cards?board=${b.id}&limit=100`)).body.data.map((x: any) => [x.id, x.branch_name]));
    for (const c of made) expect(listed.get(c.id), c.title).toBe(branchName(c.ref, c.title));
  });

  it('github_login is validated like a GitHub login and unique per organization whatever its case', async () => {
    const m = await member(t, { name: 'Gh one' });
    const bad = await t.api('PATCH', `/v1/members/${m.id}`, { body: { github_login: '-bad--login-' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].field).toBe('github_login');
    expect((await t.api('PATCH', `/v1/members/${m.id}`, { body: { github_login: 'gh-unique' } })).body.github_login).toBe('gh-unique');
    const other = await member(t, { name: 'Gh two' });
    const clash = await t.api('PATCH', `/v1/members/${other.id}`, { body: { github_login: 'GH-Unique' } });
    expect(clash.status).toBe(409);
    expect((await t.api('PATCH', `/v1/members/${m.id}`, { body: { github_login: null } })).body.github_login).toBeNull();
  });
});
