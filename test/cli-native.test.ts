import { execFile, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandPath, MORE_COMMANDS } from '../src/cli/command-names.js';
import { operations } from '../src/operations/index.js';
import { BUILD_TIMEOUT_MS, ensureCliBuilt } from './helpers/build-cli.js';
import { member } from './helpers/factories.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { runTack, TACK_BIN, type TackOptions } from './helpers/tack.js';

/**
 * The CLI as gh and the Stripe CLI are: free text kept whole, `cards update`, `tack api`,
 * completion for bash, zsh and fish, a question before a delete on a terminal, examples in
 * every command's help.
 */

const run = promisify(execFile);
let t: TestServer;
let home: string;
let me: { id: string };

beforeAll(async () => {
  await ensureCliBuilt();
  t = await startTestServer();
  home = mkdtempSync(join(tmpdir(), 'tack-cli-native-'));
  me = (await t.api('GET', '/v1/me')).body.member;
  expect((await t.api('POST', '/v1/boards', { body: { name: 'Native', slug: 'native', ref_prefix: 'NAT' } })).status).toBe(201);
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  await t?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

function tack(args: string[], options: TackOptions = {}) {
  return runTack(args, { ...options, env: { HOME: home, XDG_CONFIG_HOME: join(home, 'config'), TACK_URL: t.url, TACK_TOKEN: t.token, ...options.env } });
}

async function json(args: string[]) {
  const res = await tack([...args, '--json']);
  expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(0);
  return JSON.parse(res.stdout);
}

describe('lists on the command line', () => {
  it('keeps free text whole: each --criteria is one criterion, commas and all', async () => {
    const card = await json(['cards', 'create', '--board', 'native', '--title', 'Sign-up form', '--criteria', 'Form renders, validates', '--criteria', 'Errors are announced']);
    const criteria = (await json(['criteria', 'list', card.ref])).data.map((c: { title: string }) => c.title);
    expect(criteria).toEqual(['Form renders, validates', 'Errors are announced']);
    const snippet = await json(['snippets', 'create', '--type', 'txt', '--name', 'tagged', '--body', 'x', '--tags', 'a,b']);
    expect(snippet.tags).toEqual(['a,b']);
  });

  it('splits ids and fixed values on commas, and takes me for yourself wherever a member id goes', async () => {
    const other = await member(t, { name: 'Other' });
    const card = await json(['cards', 'create', '--board', 'native', '--title', 'Mine', '--assignee-ids', 'me']);
    expect(card.assignee_ids).toEqual([me.id]);
    const both = await json(['cards', 'update', card.ref, '--assignee-ids', `${other.id},me`]);
    expect(both.assignee_ids).toEqual([other.id, me.id]);
    // The same word on /v1 and over MCP: the rule is the domain's.
    const api = await t.api('PATCH', `/v1/cards/${card.id}`, { body: { assignee_ids: ['me', me.id] } });
    expect(api.status).toBe(200);
    expect(api.body.assignee_ids).toEqual([me.id]);
    const token = await json(['tokens', 'create', '--name', 'split', '--scopes', 'read,write']);
    expect(token.scopes).toEqual(['read', 'write']);
  });
});

describe('tack cards update', () => {
  it('renames and moves a card with --status, the word cards list filters by; --workflow-status works on both', async () => {
    const card = await json(['cards', 'create', '--board', 'native', '--title', 'Fix teh login']);
    const updated = await json(['cards', 'update', card.ref, '--title', 'Fix the login', '--status', 'review']);
    expect(updated).toMatchObject({ title: 'Fix the login', workflow_status: 'in_review' });
    expect(await json(['cards', 'update', card.ref, '--workflow-status', 'wip'])).toMatchObject({ workflow_status: 'in_progress' });
    const refs = async (flag: string) => (await json(['cards', 'list', '--board', 'native', flag, 'in_progress'])).data.map((c: { ref: string }) => c.ref);
    expect(await refs('--status')).toEqual([card.ref]);
    expect(await refs('--workflow-status')).toEqual([card.ref]);
    const help = await tack(['cards', 'update', '--help']);
    expect(help.stdout).toContain('Usage: tack cards update [options] <id>');
    expect(help.stdout).toMatch(/--status <backlog\|in_progress\|in_review\|done>/);
    expect(help.stdout).not.toContain('--workflow-status');
    expect((await tack(['cards', 'list', '--help'])).stdout).toMatch(/--status <backlog\|in_progress\|in_review\|done>/);
  });
});

describe('tack api', () => {
  it('calls any /v1 path with the login and prints the body as the API sent it', async () => {
    const res = await tack(['api', 'GET', '/me']);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual((await t.api('GET', '/v1/me')).body);
    // With the stored login instead of TACK_TOKEN, as every command.
    const config = join(home, 'api-login');
    expect((await tack(['login'], { env: { XDG_CONFIG_HOME: config, TACK_TOKEN: undefined }, input: `${t.token}\n` })).code).toBe(0);
    const stored = await tack(['api', 'get', '/v1/me'], { env: { XDG_CONFIG_HOME: config, TACK_TOKEN: undefined } });
    expect(stored.code, stored.stderr).toBe(0);
    expect(JSON.parse(stored.stdout).member.id).toBe(me.id);
  });

  it('sends -f as text and -F typed, in the body of a write and the query of a read; pages with --paginate', async () => {
    const todo = await tack(['api', 'POST', '/todos', '-f', 'title=Review NAT-1, then merge', '-f', 'due_on=2030-01-31', '-F', 'priority=high']);
    expect(todo.code, todo.stderr).toBe(0);
    expect(JSON.parse(todo.stdout)).toMatchObject({ title: 'Review NAT-1, then merge', due_on: '2030-01-31', priority: 'high' });
    const card = await json(['cards', 'create', '--board', 'native', '--title', 'By api']);
    const patched = await tack(['api', 'PATCH', `/cards/${card.ref}`, '-F', 'assignee_ids[]=me', '-F', 'due_on=null']);
    expect(JSON.parse(patched.stdout)).toMatchObject({ assignee_ids: [me.id], due_on: null });
    const page = await tack(['api', 'GET', '/cards?board=native', '-F', 'limit=1']);
    expect(JSON.parse(page.stdout).data).toHaveLength(1);
    const all = await tack(['api', 'GET', '/cards', '-f', 'board=native', '-F', 'limit=1', '--paginate']);
    expect(all.code, all.stderr).toBe(0);
    const every = (await t.api('GET', '/v1/cards?board=native&limit=100')).body.data.map((c: { id: string }) => c.id);
    expect(JSON.parse(all.stdout).data.map((c: { id: string }) => c.id)).toEqual(every);
    const body = join(home, 'todo.json');
    writeFileSync(body, JSON.stringify({ title: 'From a file' }));
    expect(JSON.parse((await tack(['api', 'POST', '/todos', '--input', body])).stdout).title).toBe('From a file');
    expect(JSON.parse((await tack(['api', 'POST', '/todos', '--input', '-'], { input: '{"title":"From stdin"}' })).stdout).title).toBe('From stdin');
    const gone = await tack(['api', 'DELETE', `/cards/${card.ref}`]);
    expect(gone).toMatchObject({ code: 0, stdout: '' });
  });

  it('answers an error with the envelope on stderr and the usual exit codes', async () => {
    const missing = await tack(['api', 'GET', '/cards/NAT-999']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(JSON.parse(missing.stderr)).toMatchObject({ code: 'card_not_found', http_status: 404, request_id: expect.stringMatching(/^req_/) });
    const invalid = await tack(['api', 'POST', '/todos', '-f', 'title=x', '-f', 'bogus=1']);
    expect(invalid.code).toBe(1);
    expect(JSON.parse(invalid.stderr)).toMatchObject({ code: 'validation_failed', errors: [{ field: 'bogus', code: 'unknown_field' }] });
    const refused = await tack(['api', 'GET', '/me'], { env: { TACK_TOKEN: 'tack_live_nope' } });
    expect(refused.code).toBe(4);
    for (const args of [['api', 'PUT', '/me'], ['api', 'GET', 'me'], ['api', 'POST', '/todos', '-f', 'novalue']]) {
      const usage = await tack(args);
      expect(usage.code, args.join(' ')).toBe(2);
      expect(JSON.parse(usage.stderr)).toMatchObject({ code: 'usage_error', http_status: 0 });
    }
  });
});

/** `tack` on PATH, as an installed one is, for the shells' completion to call. */
function binDir(): string {
  const dir = join(home, 'bin');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'tack'), `#!/bin/sh\nexec "${process.execPath}" "${TACK_BIN}" "$@"\n`);
  chmodSync(join(dir, 'tack'), 0o755);
  return dir;
}

const hasShell = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

describe('tack completion', () => {
  it('completes commands, options and values in bash, from the tack that runs', async () => {
    const script = await tack(['completion', 'bash']);
    expect(script.code).toBe(0);
    writeFileSync(join(home, 'tack.bash'), script.stdout);
    /** COMPREPLY for the words typed so far (the last one is being typed). */
    const reply = async (...words: string[]) => {
      const setup = `source ${JSON.stringify(join(home, 'tack.bash'))}; COMP_WORDS=(tack ${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length}; _tack_complete; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const { stdout } = await run('bash', ['-c', setup], { env: { PATH: `${binDir()}:${process.env.PATH}`, HOME: home } });
      return stdout.split('\n').filter((l) => l !== '');
    };
    expect(await reply('ca')).toEqual(['cards']);
    expect(await reply('cards', '')).toEqual(expect.arrayContaining(['list', 'create', 'update', 'move', 'delete']));
    expect(await reply('cards', 'update', 'NAT-1', '--st')).toEqual(['--status']);
    expect(await reply('cards', 'update', 'NAT-1', '--status', '')).toEqual(['backlog', 'in_progress', 'in_review', 'done']);
    expect(await reply('cards', 'move', 'NAT-1', 'in_')).toEqual(['in_progress', 'in_review']);
    expect(await reply('tokens', 'create', '--scopes', '')).toEqual(['read', 'write', 'replay', 'config:write']);
    expect(await reply('completion', '')).toEqual(['bash', 'zsh', 'fish']);
  });

  it.skipIf(!hasShell('zsh'))('completes in zsh', async () => {
    const script = await tack(['completion', 'zsh']);
    writeFileSync(join(home, 'tack.zsh'), script.stdout);
    // zsh's completion widgets need a terminal: the script's function is run with the words
    // set, and _describe (or _files, when there is nothing to offer) prints what it is given.
    const reply = async (...words: string[]) => {
      const setup = `compdef() { : }; source ${JSON.stringify(join(home, 'tack.zsh'))}; _describe() { print -rl -- "\${(@P)3}" }; _files() { print FILES }; words=(tack ${words.map((w) => `'${w}'`).join(' ')}); CURRENT=${words.length + 1}; _tack`;
      const { stdout } = await run('zsh', ['-fc', setup], { env: { PATH: `${binDir()}:${process.env.PATH}`, HOME: home } });
      return stdout.split('\n').filter((l) => l !== '');
    };
    expect(await reply('cards', 'upd')).toEqual([expect.stringMatching(/^update:Change a card/)]);
    expect(await reply('tokens', 'create', '--scopes', '')).toEqual(['read', 'write', 'replay', 'config\\:write']);
    expect(await reply('snippets', 'create', '--body', '')).toEqual(['FILES']);
  });

  it.skipIf(!hasShell('fish'))('completes in fish', async () => {
    const script = await tack(['completion', 'fish']);
    writeFileSync(join(home, 'tack.fish'), script.stdout);
    const complete = async (line: string) => {
      const { stdout } = await run('fish', ['-c', `source ${join(home, 'tack.fish')}; complete -C '${line}'`], { env: { PATH: `${binDir()}:${process.env.PATH}`, HOME: home } });
      return stdout.split('\n').filter((l) => l !== '');
    };
    expect(await complete('tack cards upd')).toEqual([expect.stringMatching(/^update\tChange a card/)]);
    expect((await complete('tack cards update NAT-1 --status ')).sort()).toEqual(['backlog', 'done', 'in_progress', 'in_review']);
  });

  it('prints the candidates with their descriptions for the scripts, and refuses a shell it does not know', async () => {
    const res = await tack(['__complete', 'cards', 'up']);
    expect(res.stdout).toMatch(/^update\tChange a card/m);
    const bad = await tack(['completion', 'tcsh']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Allowed choices are bash, zsh, fish');
  });
});

/**
 * `tack <args>` with a terminal on stdin (`script` gives it one), typing `typed`. Not
 * spawnSync: the server answering it runs in this process.
 */
async function onTerminal(args: string[], typed: string): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, TACK_BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const env = { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: join(home, 'config'), TACK_URL: t.url, TACK_TOKEN: t.token, TERM: 'dumb' };
  const child = spawn('script', ['-qec', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stdin.end(typed);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, output };
}

describe('deleting', () => {
  it.skipIf(!hasShell('script'))('asks on a terminal, and deletes only on yes', async () => {
    const card = await json(['cards', 'create', '--board', 'native', '--title', 'Doomed']);
    const declined = await onTerminal(['cards', 'delete', card.ref], 'n\n');
    expect(declined.output).toContain(`Delete card ${card.ref}? [y/N]`);
    expect(declined.output).toContain('cancelled: nothing was deleted');
    expect(declined.code).toBe(2);
    expect((await t.api('GET', `/v1/cards/${card.id}`)).status).toBe(200);
    const confirmed = await onTerminal(['cards', 'delete', card.ref], 'y\n');
    expect(confirmed.code, confirmed.output).toBe(0);
    expect((await t.api('GET', `/v1/cards/${card.id}`)).status).toBe(404);
    // --yes asks nothing, on a terminal too.
    const token = (await t.api('POST', '/v1/tokens', { body: { name: 'doomed', scopes: ['read'] } })).body;
    const unasked = await onTerminal(['tokens', 'revoke', token.id, '--yes'], '');
    expect(unasked.code, unasked.output).toBe(0);
    expect(unasked.output).not.toContain('[y/N]');
  });

  it('asks nothing when stdin is not a terminal (a script, a pipe)', async () => {
    const card = await json(['cards', 'create', '--board', 'native', '--title', 'Scripted']);
    const res = await tack(['cards', 'delete', card.ref]);
    expect(res).toMatchObject({ code: 0, stdout: 'Done.\n' });
    expect(res.stderr).toBe('');
  });
});

describe('help', () => {
  it('shows examples in the help of every command, and --yes on every delete', async () => {
    const commands = operations.flatMap((op) => [commandPath(op.name, op.group), ...(MORE_COMMANDS[op.name] ?? []).map((m) => m.path)]);
    for (const path of [...commands, ['api'], ['completion'], ['mcp']]) {
      const help = await tack([...path, '--help']);
      expect(help.stdout, path.join(' ')).toMatch(/\nExamples:\n {2}(tack|echo|TACK_TOKEN)/);
    }
    for (const op of operations.filter((o) => o.method === 'DELETE')) {
      expect((await tack([...commandPath(op.name, op.group), '--help'])).stdout, op.name).toContain('-y, --yes');
    }
  }, 120_000);
});
