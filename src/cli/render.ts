/**
 * Human output of `tack`: a table for lists, aligned `field  value` lines for one thing.
 * Scripts use `--json`, which prints the response untouched.
 */

type Row = Record<string, unknown>;

/** The columns worth a glance, per group; any other group shows its first scalar fields. */
const PREFERRED_COLUMNS: Record<string, readonly string[]> = {
  members: ['id', 'name', 'email', 'role', 'tz'],
  tokens: ['id', 'name', 'scopes', 'agent', 'hint', 'expires_at', 'revoked_at'],
  snippets: ['id', 'slug', 'name', 'type', 'visibility', 'version', 'updated_at'],
  boards: ['id', 'slug', 'name', 'ref_prefix', 'gated'],
  cards: ['ref', 'title', 'workflow_status', 'due_on', 'criteria_done', 'criteria_total', 'gated'],
  criteria: ['id', 'position', 'title', 'done', 'todo_id'],
  todos: ['id', 'title', 'priority', 'due_on', 'done'],
  milestones: ['ref', 'name', 'kind', 'ends_on', 'cards_done', 'cards_total', 'criteria_done', 'criteria_total'],
};

const MAX_COLUMNS = 7;
const MAX_CELL = 48;
/** Columns that identify the organization or hold long text: noise in a table. */
const SKIPPED_IN_TABLES = new Set(['org_id', 'body']);

export function renderTable(rows: readonly Row[], group: string): string {
  if (rows.length === 0) return '(none)\n';
  const columns = tableColumns(rows, group);
  const cells = rows.map((row) => columns.map((c) => cell(row[c])));
  const header = columns.map((c) => c.toUpperCase());
  const widths = columns.map((_, i) => Math.max(header[i]!.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) => values.map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!))).join('  ').trimEnd();
  return `${[line(header), ...cells.map(line)].join('\n')}\n`;
}

function tableColumns(rows: readonly Row[], group: string): string[] {
  const present = new Set(rows.flatMap((r) => Object.keys(r)));
  const preferred = (PREFERRED_COLUMNS[group] ?? []).filter((c) => present.has(c));
  if (preferred.length >= 2) return preferred;
  const scalar = [...present].filter((key) => !SKIPPED_IN_TABLES.has(key) && rows.every((r) => isScalarish(r[key])));
  return scalar.slice(0, MAX_COLUMNS);
}

function isScalarish(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (Array.isArray(value)) return value.every((v) => v === null || typeof v !== 'object');
  return typeof value !== 'object';
}

function cell(value: unknown): string {
  const text = scalar(value).replace(/\s*\n\s*/g, ' ');
  return text.length > MAX_CELL ? `${text.slice(0, MAX_CELL - 1)}…` : text;
}

function scalar(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : visible(String(v)))).join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return visible(String(value));
}

// Control characters but tab and newline: C0, DEL and C1.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text as a terminal should show it: control characters (an escape sequence in a teammate's
 * snippet would recolour, retitle or clear the terminal) written out as `\x1b`. `--json`
 * prints the text as it is, JSON-escaped.
 */
function visible(text: string): string {
  return text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** One thing as `field  value` lines; nested objects as `parent.field`, lists of things as tables. */
export function renderObject(value: unknown, group: string): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return Array.isArray(value) ? renderTable(value as Row[], group) : `${scalar(value)}\n`;
  }
  // A whole list in one answer (`{data: [...]}` without a cursor, as listCardMoves gives): a table.
  const data = (value as Row).data;
  if (Object.keys(value).length === 1 && Array.isArray(data)) return renderTable(data as Row[], group);
  const lines: [string, string][] = [];
  const blocks: string[] = [];
  const walk = (obj: Row, prefix: string) => {
    for (const [key, v] of Object.entries(obj)) {
      const name = `${prefix}${key}`;
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) walk(v as Row, `${name}.`);
      else if (Array.isArray(v) && v.some((item) => item !== null && typeof item === 'object')) {
        blocks.push(`${name}:\n${indent(renderTable(v as Row[], key))}`);
      } else if (typeof v === 'string' && v.includes('\n')) {
        blocks.push(`${name}:\n${indent(visible(v.endsWith('\n') ? v : `${v}\n`))}`);
      } else lines.push([name, scalar(v)]);
    }
  };
  walk(value as Row, '');
  const width = Math.max(0, ...lines.map(([k]) => k.length));
  const head = lines.map(([k, v]) => `${k.padEnd(width)}  ${v}`.trimEnd()).join('\n');
  return [head ? `${head}\n` : '', ...blocks].join(blocks.length > 0 && head ? '\n' : '');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => (l ? `  ${l}` : l))
    .join('\n');
}
