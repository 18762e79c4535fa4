import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

/**
 * The baselines, in a process of their own, on the same Node: a bare Fastify hello route, no
 * logging; and, for the scenarios' reads and writes, raw routes that run the same SQL as
 * tack on the same database and nothing else (no auth, rate limit, validation or
 * presentation). A scenario registers its statements (`POST /raw`) and then loads
 * `GET|POST /raw/<id>`:
 *
 * - `rows`: the statements in turn on the pool (named prepared statements, as tack sends
 *   them), then `JSON.stringify` of the last one's rows (`{data: rows}` for a page, the row
 *   for one);
 * - `pg-json`: the last statement wrapped so that Postgres builds the JSON
 *   (`json_agg` for a page, `row_to_json` for one), sent as it comes;
 * - no statements: `JSON.stringify` of a fixed value (the raw route of a read without SQL).
 *
 * A string parameter holding `{{id}}` gets a new random value there on every request (the
 * id of an insert). `{{n}}` is the route's request counter modulo `cycle`, and `{{turn}}` how
 * many times the counter went round (a write that picks the next seeded row, and a status that
 * flips each time round). Timestamps and int8 come back as tack reads them (text, numbers).
 *
 * With `transaction`, the statements run between `begin` and `commit` on one connection, as a
 * write does: the honest baseline of a write is the same work in one transaction through `pg`
 * (claim the idempotency record, write the row, record the event, store the answer, commit).
 */

interface Statement {
  sql: string;
  params: unknown[];
}
export interface RawRoute {
  id: string;
  statements: Statement[];
  shape: 'page' | 'one';
  mode: 'rows' | 'pg-json';
  /** With no statements: the value to answer, `JSON.stringify`ed on every request (a read with no SQL). */
  value?: unknown;
  /** Run the statements in one transaction (`begin` … `commit`), answering the first row of `answer`'s statement. */
  transaction?: boolean;
  /** Index of the statement whose first row is the answer (default: the last). */
  answer?: number;
  /** The modulus of `{{n}}` (default: never wraps). */
  cycle?: number;
}

const TEXT_TYPES = [1082, 1114, 1184];
const databaseUrl = process.argv[3];
const pool = databaseUrl
  ? new pg.Pool({
      connectionString: databaseUrl,
      max: 10,
      options: '-c TimeZone=UTC',
      types: {
        getTypeParser(oid: number, format?: string) {
          if (TEXT_TYPES.includes(oid)) return (v: string) => v;
          if (oid === 20) return (v: string) => Number(v);
          return pg.types.getTypeParser(oid, format as 'text');
        },
      } as pg.CustomTypesConfig,
    })
  : undefined;
const routes = new Map<string, RawRoute & { names: string[]; fresh: boolean; templated: boolean; count: number }>();
let counter = 0;

function wrap(route: RawRoute, sql: string): string {
  if (route.mode === 'rows') return sql;
  return route.shape === 'page' ? `select coalesce(json_agg(x), '[]')::text as body from (${sql}) x` : `select row_to_json(x)::text as body from (${sql}) x`;
}

async function run(id: string): Promise<string> {
  const route = routes.get(id);
  if (!route) throw new Error(`no raw route ${id}`);
  if (route.statements.length === 0) return JSON.stringify(route.value ?? null);
  if (!pool) throw new Error(`raw route ${id} needs a database`);
  const client = await pool.connect();
  try {
    const fresh = route.fresh ? randomBytes(8).toString('hex') : '';
    const count = route.count++;
    const n = String(route.cycle ? count % route.cycle : count);
    const turn = String(route.cycle ? Math.floor(count / route.cycle) : 0);
    const fill = (p: unknown) => (typeof p === 'string' ? p.replaceAll('{{id}}', fresh).replaceAll('{{n}}', n).replaceAll('{{turn}}', turn) : p);
    const answerAt = route.answer ?? route.statements.length - 1;
    let rows: Record<string, unknown>[] = [];
    let answer: Record<string, unknown>[] = [];
    if (route.transaction) await client.query('begin');
    try {
      for (const [i, s] of route.statements.entries()) {
        const last = i === route.statements.length - 1;
        const values = route.templated ? s.params.map(fill) : s.params;
        ({ rows } = await client.query({ name: route.names[i], text: last && !route.transaction ? wrap(route, s.sql) : s.sql, values }));
        if (i === answerAt) answer = rows;
      }
      if (route.transaction) await client.query('commit');
    } catch (err) {
      if (route.transaction) await client.query('rollback');
      throw err;
    }
    if (route.mode === 'pg-json') return (answer[0]?.body as string | undefined) ?? 'null';
    return JSON.stringify(route.shape === 'page' ? { data: answer } : (answer[0] ?? null));
  } finally {
    client.release();
  }
}

const app = Fastify({ logger: false });
app.get('/hello', async () => ({ hello: 'world' }));
app.post('/raw', async (request) => {
  const route = request.body as RawRoute;
  routes.set(route.id, {
    ...route,
    names: route.statements.map(() => `raw${++counter}`),
    fresh: route.statements.some((s) => s.params.some((p) => typeof p === 'string' && p.includes('{{id}}'))),
    templated: route.statements.some((s) => s.params.some((p) => typeof p === 'string' && p.includes('{{'))),
    count: 0,
  });
  return { ok: true };
});
const answer = async (request: { params: unknown }, reply: { type(t: string): unknown }) => {
  reply.type('application/json; charset=utf-8');
  return run((request.params as { id: string }).id);
};
app.get('/raw/:id', answer);
app.post('/raw/:id', answer);
const port = Number(process.argv[2] ?? 0);
await app.listen({ port, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : port}\n`);
// Exit normally on a signal, so a profiler started with --cpu-prof writes its profile.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
