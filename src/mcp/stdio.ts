import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ApiClient, ApiError, type ApiResponse } from '../cli/api-client.js';
import { mcpTarget } from '../cli/client-env.js';
import { exitWith } from '../cli/exit.js';
import { loadManifest } from '../cli/manifest-file.js';
import { requestFor } from '../cli/operation-request.js';
import { cliErrorOf } from '../cli/run-operation.js';
import { AppError } from '../domain/errors.js';
import { newRequestId } from '../http/request-id.js';
import { VERSION } from '../version.js';
import { toolCall } from './tool-arguments.js';
import { createToolServer, toolCatalog, type ToolInvoker } from './tool-server.js';
import { errorResult, successResult } from './tools.js';
import { jsonRpcLines } from './stdio-lines.js';

interface Me {
  member: { id: string; name: string; role: string };
  org: { slug: string };
  scopes: string[];
  agent: boolean;
}

/**
 * `tack mcp`: the MCP tools over stdio for a local agent. It calls `/v1` at TACK_URL with
 * TACK_TOKEN and nothing else (never the stored login), so it needs no database and acts with
 * exactly that token's rights. Each write tool call sends one Idempotency-Key (the caller's
 * `idempotency_key`, else a new one) and reuses it on its own retries. Stdout carries the
 * protocol; what a person should know goes to stderr.
 */
export async function runStdioServer(): Promise<void> {
  let client: ApiClient;
  try {
    client = new ApiClient(mcpTarget());
    const me = (await client.request({ method: 'GET', path: '/me' })).json as Me;
    process.stderr.write(`${actingAs(client.target.url, me)}\n`);
  } catch (err) {
    exitWith(err instanceof ApiError ? cliErrorOf(err) : err);
  }
  const callTool: ToolInvoker = async (entry, args) => {
    try {
      const call = toolCall(entry, args);
      const res = await client.request({ ...requestFor(entry, call.input), idempotencyKey: call.idempotencyKey });
      return successResult(entry, res.json, replayed(res));
    } catch (err) {
      if (err instanceof ApiError) return errorResult(err.envelope);
      // Refused here, before /v1 (an argument the tool does not take): an id of its own all the same, as every error has.
      if (err instanceof AppError) return errorResult({ code: err.code, http_status: err.status, user_message: err.userMessage, errors: err.fields, request_id: newRequestId() });
      throw err;
    }
  };
  // Calls still running when stdin closes: `printf '…' | tack mcp` closes stdin right after
  // its last request, and each call is still answered before the process ends.
  const inFlight = new Set<Promise<unknown>>();
  const manifest = await loadManifest();
  const server = createToolServer(
    toolCatalog(manifest.operations),
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
      await turn();
      await server.close();
    })().finally(() => process.exit(0));
  });
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
