import { mkdtempSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandPath } from '../src/cli/command-names.js';
import { operations } from '../src/operations/index.js';
import { BUILD_TIMEOUT_MS, ensureCliBuilt } from './helpers/build-cli.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { runTack, type TackOptions } from './helpers/tack.js';

let t: TestServer;
let home: string;

beforeAll(async () => {
  await ensureCliBuilt();
  t = await startTestServer();
  home = mkdtempSync(join(tmpdir(), 'tack-cli-'));
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  await t?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** `tack` against the test server as its owner, with a config directory of its own. */
function tack(args: string[], options: TackOptions = {}) {
  return runTack(args, {
    ...options,
    env: { HOME: home, XDG_CONFIG_HOME: join(home, 'config'), TACK_URL: t.url, TACK_TOKEN: t.token, ...options.env },
  });
}

async function allTokens(): Promise<{ id: string; name: string }[]> {
  const rows: { id: string; name: string }[] = [];
  let cursor: string | undefined;
  do {
    const res = await t.api('GET', `/v1/tokens?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    rows.push(...res.body.data);
    cursor = res.body.next_cursor;
  } while (cursor);
  return rows;
}

const NO_STACK = /\n\s+at .+:\d+:\d+/;

describe('help', () => {
  it('lists every command of every resource, and the client and server commands', async () => {
    const res = await tack(['--help']);
    expect(res.code).toBe(0);
    for (const op of operations) expect(res.stdout).toMatch(new RegExp(`^  ${commandPath(op.name, op.group).join(' ')}\\b`, 'm'));
    for (const word of ['login', 'logout', 'mcp', 'serve', 'migrate', 'api', 'completion', 'TACK_URL', 'TACK_TOKEN', 'TACK_TIMEOUT', 'Exit codes', 'Examples:']) {
      expect(res.stdout).toContain(word);
    }
  });

  it('gives every operation of the table a command, with its route in the help', async () => {
    const groups = new Map<string, string[]>();
    for (const op of operations) {
      const path = commandPath(op.name, op.group);
      if (path.length === 2) groups.set(path[0]!, [...(groups.get(path[0]!) ?? []), path[1]!]);
    }
    for (const [group, verbs] of groups) {
      const res = await tack([group, '--help']);
      expect(res.code).toBe(0);
      for (const verb of verbs) expect(res.stdout).toMatch(new RegExp(`^  ${verb}\\b`, 'm'));
    }
    const create = await tack(['tokens', 'create', '--help']);
    expect(create.code).toBe(0);
    expect(create.stdout).toContain('--name <value>');
    expect(create.stdout).toMatch(/--scopes <values>\s+any of: read, write, replay, config:write/);
    expect(create.stdout).toContain('--json');
    expect(create.stdout).toContain('Calls POST /v1/tokens (needs the write scope).');
    const list = await tack(['tokens', 'list', '--help']);
    expect(list.stdout).toContain('--all');
    expect(list.stdout).toContain('--limit <n>');
    const revoke = await tack(['tokens', 'revoke', '--help']);
    expect(revoke.stdout).toContain('Usage: tack tokens revoke [options] <id>');
  });
});

describe('client commands', () => {
  it('prints the exact /v1 response with --json, and a readable view without', async () => {
    const api = await t.api('GET', '/v1/me');
    const json = await tack(['me', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(api.body);
    const human = await tack(['me']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^member\.role\s+owner$/m);
    expect(human.stdout).toMatch(/^org\.slug\s+default$/m);
    expect(human.stdout).toMatch(/^scopes\s+read,write,replay,config:write$/m);
  });

  it('creates with options (arrays repeated or comma-separated) and lists as a table', async () => {
    const created = await tack(['tokens', 'create', '--name', 'cli table', '--scopes', 'read,write', '--json']);
    expect(created.code).toBe(0);
    const token = JSON.parse(created.stdout);
    expect(token).toMatchObject({ name: 'cli table', scopes: ['read', 'write'], agent: false });
    expect(token.token).toMatch(/^tack_live_/);
    const repeated = await tack(['tokens', 'create', '--name', 'cli agent', '--scopes', 'read', '--scopes', 'write', '--agent', '--json']);
    expect(JSON.parse(repeated.stdout)).toMatchObject({ scopes: ['read', 'write'], agent: true });

    const table = await tack(['tokens', 'list', '--limit', '2']);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+SCOPES\s+AGENT\s+HINT/);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/^tok_\w+\s+cli agent\s+read,write\s+yes\s+tack_live_/);
    expect(table.stderr).toContain('--all');

    const page = await t.api('GET', '/v1/tokens?limit=2');
    const json = await tack(['tokens', 'list', '--limit', '2', '--json']);
    expect(JSON.parse(json.stdout)).toEqual(page.body);
  });

  it('follows cursors with --all', async () => {
    for (let i = 0; i < 30; i++) {
      const res = await t.api('POST', '/v1/tokens', { body: { name: `bulk ${i}`, scopes: ['read'] } });
      expect(res.status).toBe(201);
    }
    const expected = await allTokens();
    expect(expected.length).toBeGreaterThanOrEqual(31);
    const res = await tack(['tokens', 'list', '--all', '--limit', '7', '--json']);
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out.next_cursor).toBeUndefined();
    expect(out.data.map((r: { id: string }) => r.id)).toEqual(expected.map((r) => r.id));
    const table = await tack(['tokens', 'list', '--all']);
    expect(table.stdout.trimEnd().split('\n')).toHaveLength(expected.length + 1);
  });

  it('turns a path parameter into an argument and --no-<field> into null', async () => {
    const me = (await t.api('GET', '/v1/me')).body.member;
    const set = await tack(['members', 'update', me.id, '--tz', 'Europe/Berlin', '--json']);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout).tz).toBe('Europe/Berlin');
    const cleared = await tack(['members', 'update', me.id, '--no-tz', '--json']);
    expect(JSON.parse(cleared.stdout).tz).toBeNull();
    expect((await t.api('GET', '/v1/me')).body.member.tz).toBeNull();
  });

  it('revokes with a 204 and says so', async () => {
    const created = await t.api('POST', '/v1/tokens', { body: { name: 'to revoke', scopes: ['read'] } });
    const res = await tack(['tokens', 'revoke', created.body.id]);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('Done.\n');
    expect((await t.api('GET', '/v1/me', { token: created.body.token })).status).toBe(401);
  });
});

describe('as a person types it', () => {
  let card: { id: string; ref: string };
  beforeAll(async () => {
    const board = await t.api('POST', '/v1/boards', { body: { name: 'Typing', slug: 'typing', ref_prefix: 'TYP' } });
    const me = (await t.api('GET', '/v1/me')).body.member;
    card = (await t.api('POST', '/v1/cards', { body: { board: board.body.id, title: 'Typed', assignee_ids: [me.id] } })).body;
  });

  it('moves a card with the words Slack takes (wip, review, in-progress…)', async () => {
    for (const [word, status] of [
      ['wip', 'in_progress'],
      ['review', 'in_review'],
      ['In-Progress', 'in_progress'],
      ['backlog', 'backlog'],
    ]) {
      const res = await tack(['cards', 'move', card.ref, word!, '--json']);
      expect(res.code, `${word}: ${res.stderr}`).toBe(0);
      expect(JSON.parse(res.stdout).workflow_status, word).toBe(status);
    }
    const listed = await tack(['cards', 'list', '--status', 'doing', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).data).toEqual([]);
    const wrong = await tack(['cards', 'move', card.ref, 'sideways']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('Use one of backlog, in_progress, in_review, done (or todo, progress, doing');
    // The hint names the help that lists those words, not the root help.
    expect(wrong.stderr).toContain('(run `tack cards move --help` for usage)');
    expect((await tack(['cards', 'frob'])).stderr).toContain('(run `tack cards --help` for usage)');
  });

  it('takes union-typed options as plain words: --assignee me, --done true', async () => {
    const mine = await tack(['cards', 'list', '--assignee', 'me', '--json']);
    expect(mine.code, mine.stderr).toBe(0);
    expect(JSON.parse(mine.stdout).data.map((c: { ref: string }) => c.ref)).toEqual([card.ref]);

    const open = (await t.api('POST', '/v1/todos', { body: { title: 'still open' } })).body;
    const closed = (await t.api('POST', '/v1/todos', { body: { title: 'finished' } })).body;
    expect((await t.api('POST', `/v1/todos/${closed.id}/done`)).status).toBe(200);
    const ids = async (args: string[]) => {
      const res = await tack(['todos', 'list', ...args, '--json']);
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(0);
      return JSON.parse(res.stdout).data.map((x: { id: string }) => x.id);
    };
    expect(await ids(['--done', 'true'])).toEqual([closed.id]);
    expect(await ids(['--done'])).toEqual([closed.id]);
    expect(await ids(['--done', 'false'])).toEqual([open.id]);
    expect(await ids(['--no-done'])).toEqual([open.id]);
    expect((await tack(['todos', 'list', '--done', 'maybe'])).code).toBe(2);
  });

  it('says --no-<field> in help where the API says null', async () => {
    const help = await tack(['cards', 'move', '--help']);
    expect(help.stdout).toMatch(/--due-on <value>[\s\S]*?--no-due-on clears it/);
    expect(help.stdout).toMatch(/--milestone <value>\s+Milestone ref; --no-milestone takes the card out/);
    expect(help.stdout).not.toMatch(/null clears|null takes/);
  });

  it('shows a new token with a line that says it is shown once', async () => {
    const res = await tack(['tokens', 'create', '--name', 'shown once']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^token\s+tack_live_\S+$/m);
    expect(res.stdout).toContain('The token is shown once: copy it now.');
    const json = await tack(['tokens', 'create', '--name', 'shown once json', '--json']);
    expect(JSON.parse(json.stdout).token).toMatch(/^tack_live_/);
    expect(json.stderr).toContain('shown once: copy it now');
    const list = await tack(['tokens', 'list']);
    expect(list.stdout).not.toContain('shown once: copy');
  });

  it('has milestones status, and milestone status as its alias', async () => {
    expect((await t.api('POST', '/v1/milestones', { body: { ref: 'TYP1', name: 'Typing sprint' } })).status).toBe(201);
    const plural = await tack(['milestones', 'status', 'TYP1']);
    expect(plural.code, plural.stderr).toBe(0);
    expect(plural.stdout).toMatch(/^name\s+Typing sprint$/m);
    const singular = await tack(['milestone', 'status', 'TYP1']);
    expect(singular.code, singular.stderr).toBe(0);
    expect(singular.stdout).toBe(plural.stdout);
    const help = await tack(['--help']);
    expect(help.stdout).toMatch(/^  milestones status <ref>\s/m);
    expect(help.stdout).not.toMatch(/^  milestone\s/m);
  });
});

describe('--json errors', () => {
  it('prints the error envelope as one JSON line on stderr, nothing on stdout, with the usual exit code', async () => {
    const missing = await tack(['tokens', 'revoke', 'tok_doesnotexist', '--json']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(missing.stderr)).toEqual({
      code: 'token_not_found',
      http_status: 404,
      user_message: 'No token with the identifier "tok_doesnotexist".',
      request_id: expect.stringMatching(/^req_/),
    });

    const invalid = await tack(['tokens', 'create', '--name', 'late', '--expires-at', '2001-01-01T00:00:00Z', '--json']);
    expect(invalid.code).toBe(1);
    expect(JSON.parse(invalid.stderr)).toMatchObject({ code: 'validation_failed', http_status: 422, errors: [{ field: 'expires_at' }] });

    const usage = await tack(['tokens', 'list', '--limit', 'many', '--json']);
    expect(usage.code).toBe(2);
    expect(usage.stdout).toBe('');
    expect(JSON.parse(usage.stderr)).toMatchObject({ code: 'usage_error', http_status: 0, user_message: expect.stringContaining('limit') });

    const noToken = await tack(['me', '--json'], { env: { TACK_TOKEN: undefined } });
    expect(noToken.code).toBe(4);
    expect(JSON.parse(noToken.stderr)).toMatchObject({ code: 'unauthorized', http_status: 0, user_message: expect.stringContaining('TACK_TOKEN') });

    const unreachable = await tack(['me', '--json'], { env: { TACK_URL: 'http://127.0.0.1:1' } });
    expect(unreachable.code).toBe(1);
    expect(JSON.parse(unreachable.stderr)).toMatchObject({ code: 'unreachable', http_status: 0 });
  });
});

describe('editing from the command line', () => {
  /** `tack … --json`, which must succeed. */
  async function json(args: string[]) {
    const res = await tack([...args, '--json']);
    expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(0);
    return JSON.parse(res.stdout);
  }

  it('names the commands plainly and takes the milestone to change as an argument', async () => {
    const help = await tack(['milestones', 'update', '--help']);
    expect(help.stdout).toContain('Usage: tack milestones update [options] <milestone>');
    expect(help.stdout).toMatch(/--ref <value>/);
    expect(help.stdout).toContain('--no-ends-on');
    expect(help.stdout).toContain('Calls PATCH /v1/milestones/{ref}');
    for (const [group, verbs] of [['todos', ['update', 'delete']], ['milestones', ['get', 'update', 'delete']], ['boards', ['get', 'delete']], ['criteria', ['delete']], ['cards', ['moves']]] as const) {
      const res = await tack([group, '--help']);
      for (const verb of verbs) expect(res.stdout, `${group} ${verb}`).toMatch(new RegExp(`^  ${verb}\\b`, 'm'));
    }
  });

  it('creates, corrects, reorders and deletes every kind of thing', async () => {
    expect(await json(['boards', 'create', '--name', 'CLI board', '--slug', 'cli', '--ref-prefix', 'CLI'])).toMatchObject({ slug: 'cli' });
    expect(await json(['boards', 'get', 'cli'])).toMatchObject({ name: 'CLI board', ref_prefix: 'CLI' });
    await json(['milestones', 'create', '--ref', 'CL1', '--name', 'Sprnt', '--ends-on', '2026-09-30']);
    expect(await json(['milestones', 'update', 'cl1', '--ref', 'CL2', '--name', 'Sprint', '--no-ends-on'])).toMatchObject({ ref: 'CL2', name: 'Sprint', ends_on: null });
    expect(await json(['milestones', 'get', 'CL2'])).toMatchObject({ ref: 'CL2' });
    const card = await json(['cards', 'create', '--board', 'cli', '--title', 'From the CLI', '--criteria', 'a', '--criteria', 'b', '--criteria', 'c', '--milestone', 'CL2']);
    expect((await json(['cards', 'list', '--milestone', 'CL2'])).data.map((c: { id: string }) => c.id)).toEqual([card.id]);

    const criteria = (await json(['criteria', 'list', card.ref])).data;
    expect(await json(['criteria', 'update', card.ref, criteria[2].id, '--position', '0'])).toMatchObject({ title: 'c', position: 0 });
    const removed = await tack(['criteria', 'delete', card.ref, criteria[0].id]);
    expect(removed.code, removed.stderr).toBe(0);
    expect((await json(['criteria', 'list', card.ref])).data.map((c: { title: string }) => c.title)).toEqual(['c', 'b']);

    const moves = await tack(['cards', 'moves', card.ref]);
    expect(moves.code, moves.stderr).toBe(0);
    expect(moves.stdout).toMatch(/^WORKFLOW_STATUS\s+ALLOWED\s+CODE/);
    expect(moves.stdout).toMatch(/^done\s+yes/m);

    const todo = await json(['todos', 'add', 'Fix teh typo', '--due-on', '2026-09-01']);
    expect(await json(['todos', 'update', todo.id, '--title', 'Fix the typo', '--no-due-on', '--priority', 'high'])).toMatchObject({ title: 'Fix the typo', due_on: null, priority: 'high' });
    expect((await tack(['todos', 'delete', todo.id])).stdout).toBe('Done.\n');

    const notEmpty = await tack(['boards', 'delete', 'cli']);
    expect(notEmpty.code).toBe(1);
    expect(notEmpty.stderr).toContain('(board_not_empty)');
    for (const args of [['milestones', 'delete', 'CL2'], ['cards', 'delete', card.ref], ['boards', 'delete', 'cli']]) {
      const res = await tack(args);
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(0);
    }
    const gone = await tack(['boards', 'get', 'cli']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('(board_not_found)');
  });
});

describe('exit codes and errors', () => {
  it('exits 1 on a 404 and prints user_message and request_id, never a stack', async () => {
    const res = await tack(['tokens', 'revoke', 'tok_doesnotexist']);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('No token with the identifier "tok_doesnotexist". (token_not_found)');
    expect(res.stderr).toMatch(/request_id: req_[0-9a-f]+/);
    expect(res.stderr).not.toMatch(NO_STACK);
  });

  it('exits 1 on a 422 and lists the field errors', async () => {
    const res = await tack(['tokens', 'create', '--name', 'late', '--expires-at', '2001-01-01T00:00:00Z']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('(validation_failed)');
    expect(res.stderr).toContain('expires_at must be in the future. (validation_failed)');
  });

  it('exits 2 on usage errors, before any request', async () => {
    for (const args of [
      ['tokens', 'create'],
      ['nonsense'],
      ['tokens', 'list', '--limit', 'many'],
      ['tokens', 'list', '--bogus'],
      ['tokens', 'create', '--name', 'x', '--scopes', 'root'],
      ['members', 'update', 'mem_x', '--role', 'emperor'],
      ['tokens', 'revoke'],
    ]) {
      const res = await tack(args);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr).not.toMatch(NO_STACK);
    }
  });

  it('exits 4 on a refused or missing token', async () => {
    const bad = await tack(['me'], { env: { TACK_TOKEN: 'tack_live_nope' } });
    expect(bad.code).toBe(4);
    expect(bad.stderr).toContain('(unauthorized)');
    expect(bad.stderr).toMatch(/request_id: req_/);
    const none = await tack(['me'], { env: { TACK_TOKEN: undefined } });
    expect(none.code).toBe(4);
    expect(none.stderr).toContain('no token');
    // `tack mcp` takes TACK_TOKEN only (contract section 7): without it, a usage error naming it.
    const mcp = await tack(['mcp'], { env: { TACK_TOKEN: undefined } });
    expect(mcp.code).toBe(2);
    expect(mcp.stdout).toBe('');
    expect(mcp.stderr).toContain('TACK_TOKEN');
  });

  it('exits 1 with a plain message when the server cannot be reached', async () => {
    const res = await tack(['me'], { env: { TACK_URL: 'http://127.0.0.1:1' } });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('cannot reach tack at http://127.0.0.1:1 (ECONNREFUSED)');
  });
});

interface Seen {
  method: string;
  path: string;
  key: string | undefined;
  replayed?: string | undefined;
}

/**
 * A proxy in front of the test server that spoils the first writes as told: answers 503 or
 * 429 without forwarding, or forwards and then drops the connection (the answer is lost).
 */
async function flakyProxy(actions: ('503' | '429' | 'drop')[]): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const read = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  };
  const server: Server = createServer(async (req, res) => {
    const body = await read(req);
    const entry: Seen = { method: req.method!, path: req.url!, key: req.headers['idempotency-key'] as string | undefined };
    seen.push(entry);
    const action = req.method === 'GET' ? undefined : actions.shift();
    if (action === '503' || action === '429') {
      const status = Number(action);
      res.writeHead(status, { 'content-type': 'application/json', 'retry-after': action === '429' ? '1' : '0' });
      res.end(JSON.stringify({ code: action === '429' ? 'rate_limited' : 'service_unavailable', http_status: status, user_message: 'try later', request_id: 'req_proxy' }));
      return;
    }
    const headers: Record<string, string> = {};
    for (const h of ['authorization', 'content-type', 'idempotency-key']) if (req.headers[h]) headers[h] = req.headers[h] as string;
    const upstream = await fetch(`${t.url}${req.url}`, { method: req.method, headers, body: body.length > 0 ? body : undefined });
    const text = await upstream.text();
    entry.replayed = upstream.headers.get('idempotent-replayed') ?? undefined;
    if (action === 'drop') {
      res.socket?.destroy();
      return;
    }
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('write retries', () => {
  it('retries 503 and 429 (after Retry-After) under the same Idempotency-Key', async () => {
    const proxy = await flakyProxy(['503', '429']);
    try {
      const started = Date.now();
      const res = await tack(['tokens', 'create', '--name', 'retried once', '--json'], { env: { TACK_URL: proxy.url } });
      const elapsed = Date.now() - started;
      expect(res.code, res.stderr).toBe(0);
      expect(JSON.parse(res.stdout).name).toBe('retried once');
      // The wait is said, not silent: the 429's Retry-After, and how to stop.
      expect(res.stderr).toContain('tack: rate limited, retrying in 1 s; Ctrl-C to stop');
      const posts = proxy.seen.filter((s) => s.method === 'POST');
      expect(posts).toHaveLength(3);
      expect(posts[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
      expect(new Set(posts.map((p) => p.key)).size).toBe(1);
      expect(elapsed).toBeGreaterThanOrEqual(1000);
      expect((await allTokens()).filter((tk) => tk.name === 'retried once')).toHaveLength(1);
    } finally {
      await proxy.close();
    }
    const other = await tack(['tokens', 'create', '--name', 'another', '--json']);
    expect(other.code).toBe(0);
  });

  it('retries a write whose answer was lost, and the server replays it instead of writing twice', async () => {
    const proxy = await flakyProxy(['drop']);
    try {
      const res = await tack(['tokens', 'create', '--name', 'answer lost', '--json'], { env: { TACK_URL: proxy.url } });
      expect(res.code, res.stderr).toBe(0);
      const posts = proxy.seen.filter((s) => s.method === 'POST');
      expect(posts).toHaveLength(2);
      expect(posts[1]!.key).toBe(posts[0]!.key);
      expect(posts[0]!.replayed).toBeUndefined();
      expect(posts[1]!.replayed).toBe('true');
      const made = (await allTokens()).filter((tk) => tk.name === 'answer lost');
      expect(made).toHaveLength(1);
      expect(JSON.parse(res.stdout).id).toBe(made[0]!.id);
    } finally {
      await proxy.close();
    }
  });
});

describe('tack login', () => {
  it('checks the token, stores it with the URL in mode 0600, and later commands use it', async () => {
    const config = join(home, 'login-config');
    const env = { XDG_CONFIG_HOME: config, TACK_TOKEN: undefined };
    const res = await tack(['login'], { env, input: `${t.token}\n` });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(`Logged in to ${t.url} as Owner (owner) in default.`);
    const file = join(config, 'tack', 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ url: t.url, token: t.token });

    const me = await tack(['me', '--json'], { env });
    expect(me.code, me.stderr).toBe(0);
    expect(JSON.parse(me.stdout).member.role).toBe('owner');
    const withoutUrl = await tack(['me', '--json'], { env: { ...env, TACK_URL: undefined } });
    expect(withoutUrl.code, withoutUrl.stderr).toBe(0);

    // The stored token is only ever sent to the server it was stored for.
    const elsewhere = await tack(['me'], { env: { ...env, TACK_URL: 'http://127.0.0.1:1' } });
    expect(elsewhere.code).toBe(4);
    expect(elsewhere.stderr).toContain('no token for http://127.0.0.1:1');

    const out = await tack(['logout'], { env });
    expect(out.code).toBe(0);
    expect(existsSync(file)).toBe(false);
  });

  it('refuses a token the server does not accept and stores nothing', async () => {
    const config = join(home, 'refused-config');
    const res = await tack(['login'], { env: { XDG_CONFIG_HOME: config, TACK_TOKEN: undefined }, input: 'tack_live_notarealtoken\n' });
    expect(res.code).toBe(4);
    expect(res.stderr).toContain('does not accept this token');
    expect(existsSync(join(config, 'tack', 'config.json'))).toBe(false);
  });
});

describe('a server that does not answer, and input that is not text', () => {
  it('gives up after a second attempt that times out (TACK_TIMEOUT), saying so, instead of minutes of silence', async () => {
    const sockets: import('node:net').Socket[] = [];
    const hanging = (await import('node:net')).createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
      const started = Date.now();
      const res = await tack(['me', '--json'], { env: { TACK_URL: url, TACK_TIMEOUT: '0.5' } });
      expect(res.code).toBe(1);
      expect(JSON.parse(res.stderr)).toMatchObject({ code: 'unreachable', user_message: expect.stringContaining('did not answer within 0.5 s') });
      expect(sockets).toHaveLength(2);
      expect(Date.now() - started).toBeLessThan(10_000);
      const bad = await tack(['me'], { env: { TACK_URL: url, TACK_TIMEOUT: 'soon' } });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('TACK_TIMEOUT must be a number of seconds');
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => hanging.close(resolve));
    }
  });

  it('refuses a --body - that is not UTF-8 (exit 2) rather than store it with U+FFFD, and reads UTF-8 as it is', async () => {
    const bad = await tack(['snippets', 'create', '--type', 'txt', '--name', 'not utf8', '--body', '-', '--json'], { input: Buffer.from([0x61, 0xff, 0xfe, 0x62]) });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not UTF-8');
    expect((await t.api('GET', '/v1/snippets?limit=100')).body.data.some((s: { name: string }) => s.name === 'not utf8')).toBe(false);
    const good = await tack(['snippets', 'create', '--type', 'txt', '--name', 'utf8 body', '--body', '-', '--json'], { input: Buffer.from('é 😀\n', 'utf8') });
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout).body).toBe('é 😀\n');
  });
});

describe('text a teammate wrote, on a terminal', () => {
  it('writes control characters out (\\x1b) instead of sending escape sequences to the terminal; --json keeps the text as it is', async () => {
    const body = 'plain \u001b[2J\u001b]0;owned\u0007 end\nnext\tline';
    const made = await t.api('POST', '/v1/snippets', { body: { type: 'txt', name: 'escapes', body } });
    expect(made.status).toBe(201);
    const human = await tack(['snippets', 'get', made.body.id]);
    expect(human.code).toBe(0);
    expect(human.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(human.stdout).toContain('plain \\x1b[2J\\x1b]0;owned\\x07 end');
    const json = await tack(['snippets', 'get', made.body.id, '--json']);
    expect(JSON.parse(json.stdout).body).toBe(body);
    // One line: a `field  value` line, not a block.
    const oneLine = await t.api('POST', '/v1/snippets', { body: { type: 'txt', name: 'escape on one line', body: 'red \u001b[31mtext\u001b[0m' } });
    const line = await tack(['snippets', 'get', oneLine.body.id]);
    expect(line.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(line.stdout).toMatch(/^body +red \\x1b\[31mtext\\x1b\[0m$/m);
  });
});
