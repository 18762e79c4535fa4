import { createClient } from '@hey-api/openapi-ts';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/spawn.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/**
 * The document is for clients nobody here wrote: two maintained generators make a client of
 * the live `/v1/openapi.json` as it is (no hand edit: `servers` is absolute), the client and a
 * program using it compile under strict TypeScript, and the program calls the server: create,
 * read, update, a list page by page, a 404 and a 422, each answer read through the generated
 * types (`Card`, not `GetCard200`).
 */

const run = promisify(execFile);
let t: TestServer;
let dir: string;

beforeAll(async () => {
  t = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'tack-generated-'));
  // The programs import openapi-fetch and run under tsx from here: the repository's packages.
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noUncheckedIndexedAccess: true,
        noEmit: true,
        target: 'ES2022',
        module: 'ESNext',
        moduleResolution: 'Bundler',
        lib: ['ES2022', 'DOM', 'DOM.Iterable'],
        types: ['node'],
        skipLibCheck: true,
      },
      include: ['**/*.ts'],
    }),
  );
});
afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** What each program prints: the same for both clients, but for the board each one makes. */
function expected(prefix: string) {
  return {
    created: { status: 201, ref: `${prefix}-1`, due_on: '2030-01-31' },
    read: 'Made by a generated client',
    updated: { title: 'Renamed', workflow_status: 'in_progress', due_on: null },
    todo: '2030-01-31',
    pages: [['Second'], ['Renamed'], null],
    missing: { status: 404, code: 'card_not_found' },
    invalid: { status: 422, code: 'validation_failed', fields: ['limit'] },
  };
}

/** Compiles every program of the directory under strict TypeScript, then runs `program`; its one line of JSON. */
async function compileAndRun(program: string): Promise<unknown> {
  try {
    await run(process.execPath, [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { cwd: dir });
  } catch (err) {
    throw new Error(`the generated client does not compile:\n${(err as { stdout?: string }).stdout ?? String(err)}`);
  }
  const { stdout } = await run(process.execPath, ['--import', 'tsx', program], { cwd: dir, env: { PATH: process.env.PATH, TACK_TOKEN: t.token, TACK_DOCUMENT: `${t.url}/v1/openapi.json` } });
  return JSON.parse(stdout);
}

describe('a client generated from /v1/openapi.json', () => {
  it('by @hey-api/openapi-ts compiles under strict TypeScript and works against the server', async () => {
    await createClient({
      input: `${t.url}/v1/openapi.json`,
      output: join(dir, 'hey'),
      logs: { level: 'silent' },
      plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
    });
    writeFileSync(
      join(dir, 'hey-program.ts'),
      `
import { client } from './hey/client.gen';
import { createBoard, createCard, createTodo, getCard, listCards, moveCard, type Card, type Todo } from './hey';

// The base URL is the document's own (servers): only the token is set here.
client.setConfig({ headers: { Authorization: \`Bearer \${process.env.TACK_TOKEN}\` } });

const board = await createBoard({ body: { name: 'Hey', slug: 'hey', ref_prefix: 'HEY' }, throwOnError: true });
const created = await createCard({ body: { board: board.data.slug, title: 'Made by a generated client', due_on: '2030-01-31', criteria: ['Compiles'] }, throwOnError: true });
const card: Card = created.data;
const read = await getCard({ path: { id: card.ref }, throwOnError: true });
const updated = await moveCard({ path: { id: card.id }, body: { title: 'Renamed', workflow_status: 'in_progress', due_on: null }, throwOnError: true });
await createCard({ body: { board: board.data.id, title: 'Second', due_on: 'tomorrow' }, throwOnError: true });
const todo: Todo = (await createTodo({ body: { title: 'Due', due_on: '2030-01-31' }, throwOnError: true })).data;
const first = await listCards({ query: { board: 'hey', limit: 1 }, throwOnError: true });
const second = await listCards({ query: { board: 'hey', limit: 1, cursor: first.data.next_cursor }, throwOnError: true });
const missing = await getCard({ path: { id: 'HEY-999' } });
const invalid = await listCards({ query: { limit: 1000 } });
console.log(JSON.stringify({
  created: { status: created.response.status, ref: card.ref, due_on: card.due_on },
  read: read.data.title,
  updated: { title: updated.data.title, workflow_status: updated.data.workflow_status, due_on: updated.data.due_on },
  todo: todo.due_on,
  pages: [first.data.data.map((c) => c.title), second.data.data.map((c) => c.title), second.data.next_cursor ?? null],
  missing: { status: missing.response.status, code: missing.error?.code },
  invalid: { status: invalid.response.status, code: invalid.error?.code, fields: invalid.error?.errors?.map((e) => e.field) },
}));
`,
    );
    expect(await compileAndRun('hey-program.ts')).toEqual(expected('HEY'));
  }, 240_000);

  it('by openapi-typescript, called with openapi-fetch, compiles under strict TypeScript and works against the server', async () => {
    writeFileSync(join(dir, 'openapi.d.ts'), astToString(await openapiTS(new URL(`${t.url}/v1/openapi.json`))));
    writeFileSync(
      join(dir, 'fetch-program.ts'),
      `
import createClient from 'openapi-fetch';
import type { components, paths } from './openapi';

type Card = components['schemas']['Card'];

function must<T>(answer: { data?: T; error?: unknown }): T {
  if (answer.data === undefined) throw new Error(JSON.stringify(answer.error));
  return answer.data;
}

// The base URL is the document's own (servers): nothing to edit by hand.
const doc = (await (await fetch(process.env.TACK_DOCUMENT!)).json()) as { servers: { url: string }[] };
const api = createClient<paths>({ baseUrl: doc.servers[0]!.url, headers: { Authorization: \`Bearer \${process.env.TACK_TOKEN}\` } });

const board = must(await api.POST('/boards', { body: { name: 'Fetch', slug: 'fetch', ref_prefix: 'FET' } }));
const created = await api.POST('/cards', { body: { board: board.slug, title: 'Made by a generated client', due_on: '2030-01-31', criteria: ['Compiles'] } });
const card: Card = must(created);
const read = must(await api.GET('/cards/{id}', { params: { path: { id: card.ref } } }));
const updated = must(await api.PATCH('/cards/{id}', { params: { path: { id: card.id } }, body: { title: 'Renamed', workflow_status: 'in_progress', due_on: null } }));
must(await api.POST('/cards', { body: { board: board.id, title: 'Second', due_on: 'tomorrow' } }));
const todo = must(await api.POST('/todos', { body: { title: 'Due', due_on: '2030-01-31' } }));
const first = must(await api.GET('/cards', { params: { query: { board: 'fetch', limit: 1 } } }));
const second = must(await api.GET('/cards', { params: { query: { board: 'fetch', limit: 1, cursor: first.next_cursor } } }));
const missing = await api.GET('/cards/{id}', { params: { path: { id: 'FET-999' } } });
const invalid = await api.GET('/cards', { params: { query: { limit: 1000 } } });
console.log(JSON.stringify({
  created: { status: created.response.status, ref: card.ref, due_on: card.due_on },
  read: read.title,
  updated: { title: updated.title, workflow_status: updated.workflow_status, due_on: updated.due_on },
  todo: todo.due_on,
  pages: [first.data.map((c) => c.title), second.data.map((c) => c.title), second.next_cursor ?? null],
  missing: { status: missing.response.status, code: missing.error?.code },
  invalid: { status: invalid.response.status, code: invalid.error?.code, fields: invalid.error?.errors?.map((e) => e.field) },
}));
`,
    );
    expect(await compileAndRun('fetch-program.ts')).toEqual(expected('FET'));
  }, 240_000);
});
