import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ApiClient, ApiError } from '../cli/api-client.js';
import { clientTarget } from '../cli/client-env.js';
import { loadManifest } from '../cli/manifest-file.js';
import { requestFor } from '../cli/operation-request.js';
import { VERSION } from '../version.js';
import { createToolServer, toolCatalog } from './tool-server.js';
import { errorResult, successResult } from './tools.js';

/**
 * `tack mcp`: the MCP tools over stdio for a local agent. Like every client command it calls
 * `/v1` with TACK_TOKEN (or the stored login) at TACK_URL, so it needs no database and acts
 * with exactly that token's rights. Stdout carries the protocol; nothing else is printed there.
 */
export async function runStdioServer(): Promise<void> {
  const client = new ApiClient(clientTarget());
  const manifest = await loadManifest();
  const server = createToolServer(
    toolCatalog(manifest.operations),
    async (entry, args) => {
      try {
        const res = await client.request(requestFor(entry, args));
        return successResult(entry, res.json);
      } catch (err) {
        if (err instanceof ApiError) return errorResult(err.envelope);
        throw err;
      }
    },
    VERSION,
  );
  await server.connect(new StdioServerTransport());
  // The client closing our stdin is the end of the session.
  process.stdin.once('end', () => {
    void server.close().finally(() => process.exit(0));
  });
}
