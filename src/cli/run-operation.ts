import { ApiError, type ApiClient, type ApiResponse } from '../client/api-client.js';
import type { ParsedCall } from './client-commands.js';
import { clientTarget } from './client-env.js';
import { confirmOnTerminal } from './confirm.js';
import { CliError, EXIT, exitWith, exitWithEnvelope } from '../client/exit.js';
import { cliErrorOf, envelopeOf, exitCodeOf } from '../client/failure.js';
import { requestFor } from '../client/operation-request.js';
import { renderObject, renderTable } from './render.js';
import { terminalClient } from './terminal-client.js';

interface Page {
  data: Record<string, unknown>[];
  next_cursor?: string;
}

/** Page size for `--all` when no `--limit` is given: fewer round trips. */
const ALL_PAGE_SIZE = 100;

/** Runs one client command: calls `/v1`, prints the answer, exits with the right code. */
export async function runOperation(call: ParsedCall): Promise<void> {
  try {
    const client = terminalClient(clientTarget());
    const input = await readStdinFields(call.input);
    if (call.confirm !== undefined && !(await confirmOnTerminal(call.confirm))) throw new CliError('cancelled: nothing was deleted', EXIT.usage, [], 'cancelled');
    if (call.all && call.entry.list) {
      const rows = await allPages(client, call, input);
      write(call.json ? `${JSON.stringify({ data: rows })}\n` : renderTable(rows, call.entry.group));
      return;
    }
    const res = await client.request(requestFor(call.entry, input));
    present(call, res);
  } catch (err) {
    if (call.json) exitWithEnvelope(envelopeOf(err), exitCodeOf(err));
    exitWith(err instanceof ApiError ? cliErrorOf(err) : err);
  }
}

async function allPages(client: ApiClient, call: ParsedCall, input: Record<string, unknown>): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  const query: Record<string, unknown> = { ...input, limit: input.limit ?? ALL_PAGE_SIZE };
  for (;;) {
    const res = await client.request(requestFor(call.entry, query));
    const page = res.json as Page;
    rows.push(...page.data);
    if (!page.next_cursor) return rows;
    query.cursor = page.next_cursor;
  }
}

function present(call: ParsedCall, res: ApiResponse): void {
  const secret = shownOnce(call, res);
  if (call.json) {
    if (res.text) write(res.text.endsWith('\n') ? res.text : `${res.text}\n`);
    if (secret) process.stderr.write(`tack: ${secret}\n`);
    return;
  }
  if (res.status === 204 || res.json === undefined) {
    write('Done.\n');
    return;
  }
  if (call.entry.list) {
    const page = res.json as Page;
    write(renderTable(page.data, call.entry.group));
    if (page.next_cursor) process.stderr.write(`(more: add --all, or --cursor ${page.next_cursor})\n`);
    return;
  }
  write(renderObject(res.json, call.entry.group));
  if (secret) write(`\n${secret}\n`);
}

/** The line that goes with a secret shown once (a new token): copy it now, it cannot be shown again. */
function shownOnce(call: ParsedCall, res: ApiResponse): string | undefined {
  const field = call.entry.shownOnce;
  const body = res.json as Record<string, unknown> | undefined;
  if (!field || typeof body?.[field] !== 'string') return undefined;
  return `The ${field} is shown once: copy it now. tack keeps only a hash and cannot show it again.`;
}

function write(text: string): void {
  process.stdout.write(text);
}

/** Fields whose `-` reads the text from stdin: a snippet's or comment's body, a card's description. */
export const STDIN_FIELDS = ['body', 'description'] as const;

/** `--body -` (or `--description -`) reads the text from stdin, so a file can be piped in. */
async function readStdinFields(input: Record<string, unknown>): Promise<Record<string, unknown>> {
  const field = STDIN_FIELDS.find((f) => input[f] === '-');
  if (field === undefined) return input;
  if (process.stdin.isTTY) throw new CliError(`--${field} - reads from stdin: pipe the text in (for example \`< file.md\`)`, EXIT.usage);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  try {
    return { ...input, [field]: new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)) };
  } catch {
    // Read as U+FFFD it would be stored changed; the server refuses such bytes too.
    throw new CliError(`--${field} - reads UTF-8 text, and stdin was not UTF-8: convert it first (for example with iconv)`, EXIT.usage);
  }
}
