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
  options: { write?: boolean } = {},
): Promise<Target[]> {
  const modes = options.write ? (['rows'] as const) : (['rows', 'pg-json'] as const);
  const targets: Target[] = [];
  for (const mode of modes) {
    const res = await fetch(`${ctx.baselineUrl}/raw`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: `${id}-${mode}`, statements, shape, mode }),
    });
    if (!res.ok) throw new Error(`registering raw route ${id}: ${res.status}`);
    const url = `${ctx.baselineUrl}/raw/${id}-${mode}`;
    const check = await fetch(url, { method: options.write ? 'POST' : 'GET' });
    if (!check.ok) throw new Error(`raw route ${id}-${mode}: ${check.status} ${await check.text()}`);
    targets.push({
      name: mode === 'rows' ? 'raw: pg + JSON.stringify' : 'raw: Postgres builds the JSON',
      url,
      ...(options.write ? { method: 'POST' } : {}),
    });
  }
  return targets;
}
