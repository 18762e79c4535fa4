import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RawJson } from '../src/db/raw-json.js';
import { authenticateToken } from '../src/domain/authenticate.js';
import type { Principal } from '../src/domain/context.js';
import { AppError } from '../src/domain/errors.js';
import { callOperation } from '../src/operations/call.js';
import type { Runtime } from '../src/operations/execute.js';
import { defineCoreOperation } from '../src/operations/operation.js';
import { expectEnvelope } from './helpers/envelope.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { signIn } from './helpers/web.js';

/**
 * In-process callers (the Slack face, the jobs) call an operation's core: typed input checked
 * by its own schema, the answer as a value, with no HTTP request made up in between.
 */

let t: TestServer;
let rt: Runtime;
let owner: Principal;

beforeAll(async () => {
  t = await startTestServer();
  // The server's own runtime: its public links name the port it listens on.
  rt = t.server.runtime;
  owner = (await authenticateToken(t.server.db.db, t.token, new Date())).principal;
});
afterAll(async () => {
  await t?.close();
});

/** The AppError a call throws (failing the test when it throws none). */
async function refusal(call: Promise<unknown>): Promise<AppError> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('callOperation', () => {
  it('answers the value the operation made, not JSON of it parsed again; Postgres-serialized reads parsed once', async () => {
    class Marked {
      constructor(readonly at: Date) {}
    }
    const made = { marked: new Marked(new Date('2030-01-02T03:04:05Z')) };
    const valued = defineCoreOperation({ name: 'testValue', summary: 'test', group: 'me', scope: 'read', readOnly: true, output: z.object({ marked: z.any() }), run: async () => made });
    const answer = await callOperation(rt, valued, owner, {});
    // The very object: a Date and a class instance survive, which JSON would have flattened.
    expect(answer).toBe(made);
    expect(answer.marked).toBeInstanceOf(Marked);
    expect(answer.marked.at).toBeInstanceOf(Date);

    const raw = defineCoreOperation({
      name: 'testRaw',
      summary: 'test',
      group: 'me',
      scope: 'read',
      readOnly: true,
      output: z.object({ n: z.number() }),
      run: async () => new RawJson<{ n: number }>('{"n":42}'),
    });
    expect(await callOperation(rt, raw, owner, {})).toEqual({ n: 42 });

    // A read of the table that Postgres serializes, as objects equal to /v1's body.
    const todo = await callOperation(rt, 'createTodo', owner, { title: 'In-process todo', priority: 'high' });
    expect(todo).toMatchObject({ title: 'In-process todo', priority: 'high', done: false });
    const snippet = await callOperation(rt, 'createSnippet', owner, { name: 'In-process snippet', type: 'txt', body: 'hello' });
    const got = await callOperation(rt, 'getSnippet', owner, { id: snippet.id });
    expect(got).not.toBeInstanceOf(RawJson);
    const v1 = await t.api('GET', `/v1/snippets/${snippet.id}`);
    expect(got).toEqual(v1.body);
    const page = await callOperation(rt, 'listSnippets', owner, { limit: 5 });
    expect(page.data.map((s) => s.id)).toContain(snippet.id);
    expect(page).toEqual((await t.api('GET', '/v1/snippets?limit=5')).body);
  });

  it('refuses bad input with the same 422 field errors as /v1, and changes nothing', async () => {
    const before = (await t.api('GET', '/v1/todos?limit=100')).body.data.length;
    const bad = { title: 'x'.repeat(1000), priority: 'soonish', due_on: 'someday', colour: 'red' };
    const v1 = await t.api('POST', '/v1/todos', { body: bad });
    expectEnvelope(v1, 422, 'validation_failed');
    const err = await refusal(callOperation(rt, 'createTodo', owner, bad as never));
    expect(err.status).toBe(422);
    expect(err.code).toBe('validation_failed');
    expect(err.userMessage).toBe(v1.body.user_message);
    expect(err.fields).toEqual(v1.body.errors);
    expect(err.fields!.map((f) => f.field).sort()).toEqual(['colour', 'due_on', 'priority', 'title']);

    // A query parameter's bound, given as the number it is.
    const list = await t.api('GET', '/v1/todos?limit=0');
    expectEnvelope(list, 422, 'validation_failed');
    expect((await refusal(callOperation(rt, 'listTodos', owner, { limit: 0 }))).fields).toEqual(list.body.errors);

    // A path parameter's text Postgres cannot hold.
    const path = await t.api('GET', `/v1/cards/${encodeURIComponent('a\u0000b')}`);
    expectEnvelope(path, 422, 'validation_failed');
    expect((await refusal(callOperation(rt, 'getCard', owner, { id: 'a\u0000b' }))).fields).toEqual(path.body.errors);

    expect((await t.api('GET', '/v1/todos?limit=100')).body.data.length).toBe(before);
  });
});

describe('sign-out', () => {
  it('ends the session through the one write path: a deadlock is retried, not answered 500', async () => {
    const db = t.server.db.db;
    // The first delete of a session fails as a deadlock would (the sequence is not rolled back with it).
    await sql`create sequence signout_deadlocks`.execute(db);
    await sql`create function signout_deadlock() returns trigger language plpgsql as $$
      begin
        if nextval('signout_deadlocks') = 1 then raise exception 'deadlock detected' using errcode = '40P01'; end if;
        return old;
      end $$`.execute(db);
    await sql`create trigger signout_deadlock before delete on sessions for each row execute function signout_deadlock()`.execute(db);
    try {
      const a = await signIn(t);
      expect((await a.request('GET', '/v1/me')).status).toBe(200);
      const out = await a.request('POST', '/signout');
      expect(out.status).toBe(204);
      expect(Number((await sql<{ n: string }>`select last_value as n from signout_deadlocks`.execute(db)).rows[0]!.n)).toBe(2);
      expectEnvelope(await a.request('GET', '/v1/me'), 401, 'unauthorized');
    } finally {
      await sql`drop trigger signout_deadlock on sessions`.execute(db);
    }
  });
});
