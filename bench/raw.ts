import type { RawRoute } from './baseline-server.js';
import type { Target } from './measure.js';
import type { BenchContext } from './scenario.js';

export interface RawStatement {
  sql: string;
  params: unknown[];
}

/**
 * Registers raw routes on the baseline server for the statements a tack target runs, and
 * returns them as the target's baselines: `pg` then `JSON.stringify`, and (for reads) the
 * same with Postgres building the JSON. The SQL is tack's own text as kysely renders it
 * (copied from its query log), so the database does the same work for both.
 */
export async function rawBaselines(
  ctx: BenchContext,
  id: string,
  statements: RawStatement[],
  shape: 'page' | 'one',
  options: { write?: boolean; transaction?: boolean; answer?: number; cycle?: number; name?: string } = {},
): Promise<Target[]> {
  const modes = options.write ? (['rows'] as const) : (['rows', 'pg-json'] as const);
  const targets: Target[] = [];
  for (const mode of modes) {
    const { transaction, answer, cycle } = options;
    const url = await register(ctx, { id: `${id}-${mode}`, statements, shape, mode, transaction, answer, cycle }, options.write ? 'POST' : 'GET');
    targets.push({
      name: options.name ?? (mode === 'rows' ? 'raw: pg + JSON.stringify' : 'raw: Postgres builds the JSON'),
      url,
      ...(options.write ? { method: 'POST' } : {}),
    });
  }
  return targets;
}

/**
 * The raw route of a read that runs no SQL: `JSON.stringify` of the same answer on every
 * request, nothing else (no auth, rate limit or headers of tack's).
 */
export async function rawValueBaseline(ctx: BenchContext, id: string, value: unknown): Promise<Target> {
  const url = await register(ctx, { id, statements: [], shape: 'one', mode: 'rows', value }, 'GET');
  return { name: 'raw: JSON.stringify of the same answer', url };
}

/** Registers a raw route on the baseline server and checks that it answers; returns its URL. */
async function register(ctx: BenchContext, route: RawRoute, method: 'GET' | 'POST'): Promise<string> {
  const res = await fetch(`${ctx.baselineUrl}/raw`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(route),
  });
  if (!res.ok) throw new Error(`registering raw route ${route.id}: ${res.status}`);
  const url = `${ctx.baselineUrl}/raw/${route.id}`;
  const check = await fetch(url, { method });
  if (!check.ok) throw new Error(`raw route ${route.id}: ${check.status} ${await check.text()}`);
  return url;
}
