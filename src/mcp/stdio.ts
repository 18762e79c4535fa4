import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ApiClient, ApiError, type ApiResponse } from '../cli/api-client.js';
import { mcpTarget, mcpToolChoice, type McpToolChoice } from '../cli/client-env.js';
import { CliError, EXIT, exitWith } from '../cli/exit.js';
import { loadManifest } from '../cli/manifest-file.js';
import { requestFor } from '../cli/operation-request.js';
import { cliErrorOf } from '../cli/run-operation.js';
import type { Caller } from '../domain/callable.js';
import { validationFailed, type FieldError } from '../domain/errors.js';
import { MCP_PRODUCT } from '../domain/faces.js';
import { newRequestId } from '../http/request-id.js';
import type { OperationEntry } from '../operations/manifest.js';
import { VERSION } from '../version.js';
import { allErrors, toolCall, type ToolCall } from './tool-arguments.js';
import { createToolServer, toolCatalog, usableBy, type ToolInvoker, type ToolSource } from './tool-server.js';
import { errorResult, successResult, type ToolErrorEnvelope } from './tools.js';
import { jsonRpcLines } from './stdio-lines.js';

interface Me {
  member: { id: string; name: string; role: Caller['role'] };
  org: { slug: string };
  scopes: Caller['scopes'];
  agent: boolean;
}

/** The tool that is always offered, whatever the toolsets: who the agent acts as. */
const ALWAYS_OFFERED = 'getMe';

/**
 * `tack mcp`: the MCP tools over stdio for a local agent. It calls `/v1` at TACK_URL with
 * TACK_TOKEN and nothing else (never the stored login), so it needs no database and acts with
 * exactly that token's rights. It answers `initialize` at once; who the token is (`getMe`) is
 * asked meanwhile, and tools/list, once it is known, shows the tools that token can call, of
 * those TACK_MCP_TOOLSETS and TACK_MCP_READ_ONLY offer. A rate limit is never waited out in
 * silence: the call that met it answers 429 `rate_limited`, with the wait, and the agent
 * decides. Each write tool call sends one Idempotency-Key (the caller's `idempotency_key`,
 * else a new one) and reuses it on its own retries. Stdout carries the protocol; what a person
 * should know goes to stderr.
 */
export async function runStdioServer(): Promise<void> {
  let client: ApiClient;
  let offered: OfferedTools;
  try {
    client = new ApiClient(mcpTarget(), { retryRateLimited: false, product: MCP_PRODUCT });
    offered = offeredTools((await loadManifest()).operations, mcpToolChoice());
  } catch (err) {
    exitWith(err);
  }
  const caller = whoIsCalling(client);
  const source: ToolSource = {
    ...offered,
    list: async () => {
      const me = await caller;
      return me ? usableBy(offered.catalog, { scopes: me.scopes, role: me.member.role }) : offered.catalog.tools;
    },
  };
  const callTool: ToolInvoker = async (entry, args) => {
    try {
      const call = toolCall(entry, args);
      const missing = missingPathArguments(entry, call);
      if (call.errors.length > 0 || missing.length > 0) return errorResult(await refusal(client, entry, { ...call, errors: [...call.errors, ...missing] }, args));
      const res = await client.request({ ...requestFor(entry, call.input), idempotencyKey: call.idempotencyKey });
      return successResult(entry, res.json, replayed(res));
    } catch (err) {
      if (err instanceof ApiError) return errorResult(err.envelope);
      throw err;
    }
  };
  // Calls still running when stdin closes: `printf '…' | tack mcp` closes stdin right after
  // its last request, and each call is still answered before the process ends.
  const inFlight = new Set<Promise<unknown>>();
  const server = createToolServer(
    source,
    (entry, args) => {
      const call = callTool(entry, args);
      inFlight.add(call);
      void call.catch(() => {}).finally(() => inFlight.delete(call));
      return call;
    },
    VERSION,
  );
  const lines = jsonRpcLines(process.stdout);
  process.stdin.pipe(lines);
  await server.connect(new StdioServerTransport(lines, process.stdout));
  // The client closing our stdin is the end of the session, once the calls it made are answered
  // (the last line read: `lines` ends after stdin, once the transport has read what it passed on).
  lines.once('end', () => {
    // The SDK starts a handler, and writes its answer, a turn after the message or the result.
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    void (async () => {
      await turn();
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      await caller;
      await turn();
      await server.close();
    })().finally(() => process.exit(0));
  });
}

export type OfferedTools = Pick<ToolSource, 'catalog' | 'notOffered'>;

/**
 * The tools this server offers: the table's, narrowed by TACK_MCP_TOOLSETS (groups of the
 * table) and TACK_MCP_READ_ONLY; getMe always. A tool left out is not callable here.
 */
export function offeredTools(entries: readonly OperationEntry[], choice: McpToolChoice): OfferedTools {
  const groups = [...new Set(entries.map((e) => e.group))];
  const unknown = (choice.toolsets ?? []).filter((g) => !groups.includes(g));
  if (unknown.length > 0) throw new CliError(`TACK_MCP_TOOLSETS names no toolset ${unknown.join(', ')}; the toolsets are ${groups.join(', ')}`, EXIT.usage);
  const why = (entry: OperationEntry): string | undefined => {
    if (entry.name === ALWAYS_OFFERED) return undefined;
    if (choice.readOnly && !entry.readOnly) return `${entry.name} is not offered: this server is read-only (TACK_MCP_READ_ONLY=1).`;
    if (choice.toolsets && !choice.toolsets.includes(entry.group)) return `${entry.name} is not offered: its toolset ${entry.group} is not in TACK_MCP_TOOLSETS (${choice.toolsets.join(',')}).`;
    return undefined;
  };
  const catalog = toolCatalog(entries.filter((e) => why(e) === undefined));
  return {
    catalog,
    notOffered: (name) => {
      const entry = entries.find((e) => e.name === name);
      return entry ? why(entry) : undefined;
    },
  };
}

/**
 * Who the token is, asked of /v1 at start and said on stderr; undefined when /v1 could not
 * say (rate limited, unreachable: every tool offered is listed, and each call answers for
 * itself). A token /v1 refuses ends `tack mcp` (exit 4): no call could succeed.
 */
async function whoIsCalling(client: ApiClient): Promise<Me | undefined> {
  try {
    const me = (await client.request({ method: 'GET', path: '/me' })).json as Me;
    process.stderr.write(`${actingAs(client.target.url, me)}\n`);
    return me;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) exitWith(cliErrorOf(err));
    const reason = err instanceof ApiError ? `${err.envelope.user_message} (${err.envelope.code})` : String(err);
    process.stderr.write(`tack mcp: cannot tell who TACK_TOKEN is yet: ${reason}; listing every tool offered, and each call answers for itself\n`);
    return undefined;
  }
}

/** A JSON field name /v1 certainly does not take: a request carrying it is refused before anything is done. */
const CHECK_ONLY = 'tack_mcp_check_only';

/**
 * The 422 for a call the tool refused itself, with every problem at once: the tool's, and
 * those /v1 finds in the rest. /v1 is asked with a request it is bound to refuse (strict
 * input: a field it does not take is a 422, before anything runs), so the answer names every
 * other problem the call has and changes nothing. If /v1 answers otherwise (unreachable, rate
 * limited), the tool's own problems are the answer.
 */
async function refusal(client: ApiClient, entry: OperationEntry, call: ToolCall, args: Record<string, unknown>): Promise<ToolErrorEnvelope> {
  const check: Record<string, unknown> = { ...call.toValidate, [CHECK_ONLY]: true };
  // A path needs every parameter: one missing (already told) is stood in for.
  for (const e of call.errors) if (e.code === 'required') check[e.field] = '-';
  let validated: FieldError[] = [];
  try {
    await client.request(requestFor(entry, check));
  } catch (err) {
    if (err instanceof ApiError && err.status === 422) validated = (err.envelope.errors ?? []).filter((e) => e.field !== CHECK_ONLY);
  }
  const refused = validationFailed(allErrors(call, validated, args));
  // Refused here, before /v1: an id of its own all the same, as every error has.
  return { code: refused.code, http_status: refused.status, user_message: refused.userMessage, errors: refused.fields, request_id: newRequestId() };
}

/** The path parameters a call does not give: a URL cannot be made without them. */
function missingPathArguments(entry: OperationEntry, call: ToolCall): FieldError[] {
  return entry.fields
    .filter((f) => f.in === 'path' && !call.errors.some((e) => e.field === f.name))
    .filter((f) => call.input[f.name] === undefined || call.input[f.name] === null || call.input[f.name] === '')
    .map((f) => ({ field: f.name, code: 'required', message: `${f.name} is required.` }));
}

/** One line for the person who configured the agent: who its calls act as, and whether the gate applies. */
export function actingAs(url: string, me: Me): string {
  const kind = me.agent
    ? 'an agent token (gated moves to done are refused)'
    : 'a human token, NOT an agent token (it can make gated moves; give agents `--agent` tokens)';
  return `tack mcp: acting as ${me.member.name} (${me.member.id}, ${me.member.role}) in ${me.org.slug} at ${url}, with ${kind}; scopes ${me.scopes.join(', ')}`;
}

function replayed(res: ApiResponse): boolean {
  return res.headers['idempotent-replayed'] === 'true';
}
