import type { Kysely } from 'kysely';
import { connect, type DbHandle } from '../../src/db/connect.js';
import type { Database } from '../../src/db/schema.js';
import { authenticateToken } from '../../src/domain/authenticate.js';
import { bootstrap } from '../../src/domain/bootstrap.js';
import type { Ctx, Principal } from '../../src/domain/context.js';
import type { EventValues } from '../../src/domain/events.js';
import { generateToken } from '../../src/domain/token-format.js';
import { createMigratedDatabase, type TestDatabase } from './database.js';

/** A migrated database of a test file's own, with its first organization's owner, for calling domain functions without HTTP. */
export interface DomainDatabase {
  db: Kysely<Database>;
  database: TestDatabase;
  /** The bootstrap owner, authenticated by its token as any face would. */
  owner: Principal;
  /** A Ctx as `execute` makes one: the principal (the owner's unless given) and the clock (now unless given). */
  ctx(principal?: Principal, clock?: () => Date): Ctx;
  /** Runs `fn` in a transaction of its own, on a Ctx whose `db` is it, as every write runs (a throw rolls it back). */
  write<T>(ctx: Ctx, fn: (ctx: Ctx) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A copy of the migrated template, bootstrapped (organization `default`, an owner and their token). */
export async function domainDatabase(): Promise<DomainDatabase> {
  const database = await createMigratedDatabase();
  let handle: DbHandle | undefined;
  try {
    handle = await connect({ databaseUrl: database.url, dataDir: '', poolSize: 2 });
    const db = handle.db;
    const secret = generateToken();
    await bootstrap(db, secret);
    const { principal: owner } = await authenticateToken(db, secret, new Date());
    const close = handle.close.bind(handle);
    return {
      db,
      database,
      owner,
      ctx: (principal = owner, clock = () => new Date()) => ({ db, clock, principal }),
      write: (ctx, fn) => db.transaction().execute((trx) => fn({ ...ctx, db: trx })),
      async close() {
        await close();
        await database.drop();
      },
    };
  } catch (err) {
    await handle?.close();
    await database.drop();
    throw err;
  }
}

/** An event row as `writeEvents` takes it: a todo made in organization `orgId` by a job, unless `fields` say otherwise. */
export function eventRow(orgId: string, fields: Partial<EventValues> = {}): EventValues {
  return {
    org_id: orgId,
    type: 'todo.created',
    created_at: new Date().toISOString(),
    actor_member_id: null,
    actor_name: 'tack',
    actor_agent: false,
    face: 'job',
    subject_type: 'todo',
    subject_id: 'todo_test',
    subject_ref: null,
    card_id: null,
    audience: 'org',
    member_id: null,
    changes: {},
    data: null,
    ...fields,
  };
}
