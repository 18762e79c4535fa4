import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { describe, expect, it } from 'vitest';
import { decodeCursor, fetchLimit, makeCursor, readCursor } from './pagination.js';

const refusal = (fn: () => unknown) => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return (err as { code?: string; status?: number; name: string }).code ?? (err as Error).name;
  }
};

describe('cursors', () => {
  const scope = { org: 'org_1', member: 'mem_1', filters: { status: 'open' } };

  it('give back the position they were made at, Postgres timestamp text and numbers alike', () => {
    const at = { key: '2026-11-21 09:00:00.123456+00', id: 'tdo_1' };
    expect(readCursor(makeCursor(at, scope), scope)).toEqual(at);
    expect(readCursor(makeCursor({ key: 7, id: 'crd_7' }, scope), scope)).toEqual({ key: 7, id: 'crd_7' });
    expect(readCursor(undefined, scope)).toBeUndefined();
    expect(readCursor('', scope)).toBeUndefined();
  });

  it('are refused with 400 invalid_cursor for another list, other filters or another organization', () => {
    const cursor = makeCursor({ key: 1, id: 'x' }, scope);
    expect(refusal(() => readCursor(cursor, { ...scope, filters: { status: 'done' } }))).toBe('invalid_cursor');
    expect(refusal(() => readCursor(cursor, { ...scope, org: 'org_2' }))).toBe('invalid_cursor');
  });

  it('are refused with 400 invalid_cursor when they are not ours', () => {
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const cursor of ['not base64 json', forged({ key: 1 }), forged([1, 2, 'p']), forged([null, 'id', 'p']), forged([1, 'id'])]) {
      expect(refusal(() => decodeCursor(cursor)), cursor).toBe('invalid_cursor');
    }
  });

  it('fetch one row more than the page as a literal, for limits of 1 to 100 only', () => {
    // A Kysely that compiles Postgres SQL and runs nothing.
    const compiler = new Kysely<object>({
      dialect: {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (db) => new PostgresIntrospector(db),
        createQueryCompiler: () => new PostgresQueryCompiler(),
      },
    });
    expect(fetchLimit(25).compile(compiler)).toMatchObject({ sql: '26', parameters: [] });
    expect(fetchLimit(100).compile(compiler)).toMatchObject({ sql: '101', parameters: [] });
    for (const bad of [0, 101, 2.5]) expect(refusal(() => fetchLimit(bad)), String(bad)).toBe('RangeError');
  });
});
