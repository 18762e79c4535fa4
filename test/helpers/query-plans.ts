import type pg from 'pg';

/** A statement as kysely sent it: its text and the values bound to it. */
export interface RecordedQuery {
  sql: string;
  parameters: readonly unknown[];
}

/** Statements worth planning: reads and writes; not BEGIN, COMMIT, SET, LISTEN and the like. */
export function isPlannable(text: string): boolean {
  return /^\s*\(?\s*(select|with|insert|update|delete)\b/i.test(text);
}

/** One value as an SQL literal of unknown type, which EXECUTE casts to the parameter's type. */
function literal(client: pg.Client, value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return client.escapeLiteral(String(value));
  if (value instanceof Date) return client.escapeLiteral(value.toISOString());
  if (Array.isArray(value)) {
    const items = value.map((v) => (v === null ? 'NULL' : `"${String(v).replace(/(["\\])/g, '\\$1')}"`));
    return client.escapeLiteral(`{${items.join(',')}}`);
  }
  if (typeof value === 'object') return client.escapeLiteral(JSON.stringify(value));
  return client.escapeLiteral(String(value));
}

export interface PlanNode {
  'Node Type': string;
  'Total Cost': number;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function* walk(node: PlanNode): Generator<PlanNode> {
  yield node;
  for (const child of node.Plans ?? []) yield* walk(child);
}

/** `explain (format json)` of the statement as a named prepared statement, planned in `mode`. */
async function preparedPlan(client: pg.Client, query: RecordedQuery, mode: 'force_generic_plan' | 'force_custom_plan'): Promise<PlanNode> {
  await client.query(`set plan_cache_mode = ${mode}`);
  await client.query('deallocate all');
  await client.query(`prepare q as ${query.sql}`);
  const args = query.parameters.length ? `(${query.parameters.map((v) => literal(client, v)).join(', ')})` : '';
  const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`explain (format json) execute q${args}`);
  await client.query('deallocate q');
  return rows[0]!['QUERY PLAN'][0].Plan;
}

/**
 * The plan Postgres uses for this statement once it has been run as a named prepared
 * statement often enough to switch to the generic plan (`plan_cache_mode =
 * force_generic_plan` forces that choice at once): planned without seeing the values.
 */
export function genericPlan(client: pg.Client, query: RecordedQuery): Promise<PlanNode> {
  return preparedPlan(client, query, 'force_generic_plan');
}

/**
 * The estimated cost of the plan Postgres makes for these values (`force_custom_plan`: the
 * plan of a prepared statement's first five runs, which sees the values).
 */
export async function customPlanCost(client: pg.Client, query: RecordedQuery): Promise<number> {
  return (await preparedPlan(client, query, 'force_custom_plan'))['Total Cost'];
}

/**
 * What is wrong with a generic plan: a parallel Gather (the planner expected a large share of
 * a table), or a sequential scan of one of `indexedTables` (big tables whose queries all
 * have an index to go by). And, from the text, a LIMIT sent as a parameter, which a generic
 * plan cannot see (it assumes 10% of the table).
 */
export function planProblems(
  query: RecordedQuery,
  plan: PlanNode,
  indexedTables: ReadonlySet<string>,
  seqScanAllowed: (table: string, sql: string) => boolean = () => false,
): string[] {
  const problems: string[] = [];
  if (/\blimit\s+\$\d+/i.test(query.sql)) problems.push('LIMIT is a parameter');
  for (const node of walk(plan)) {
    if (node['Node Type'].startsWith('Gather')) problems.push(node['Node Type']);
    const table = node['Relation Name'];
    if (node['Node Type'] === 'Seq Scan' && table && indexedTables.has(table) && !seqScanAllowed(table, query.sql)) {
      problems.push(`Seq Scan on ${table}`);
    }
  }
  return problems;
}

/** How many nodes of the plan pass `test` (scan `table`: `n['Relation Name'] === table`; go by `index`: `n['Index Name'] === index`). */
export function countNodes(plan: PlanNode, test: (node: PlanNode) => boolean): number {
  let n = 0;
  for (const node of walk(plan)) if (test(node)) n++;
  return n;
}

/** The plan as one line per node, indented, for a failure message. */
export function planOutline(plan: PlanNode, depth = 0): string {
  const name = [plan['Node Type'], plan['Relation Name'] && `on ${plan['Relation Name']}`, plan['Index Name'] && `using ${plan['Index Name']}`]
    .filter(Boolean)
    .join(' ');
  return [`${'  '.repeat(depth)}${name}`, ...(plan.Plans ?? []).map((p) => planOutline(p, depth + 1))].join('\n');
}
