import { setMaxListeners } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/**
 * fetch with no cap on its signal's abort listeners. The SDK's HTTP transport hands every
 * request the session's one AbortSignal, and each fetch adds an abort listener to it; undici
 * caps a signal at 1,500 with a warning per listener past that, which a test putting
 * thousands of tool calls through one client (one-answer, fuzz-faces) turned into a thousand
 * lines of CI log. A signal whose cap is already set is left as it is by undici.
 */
const fetchUncapped: typeof fetch = (input, init) => {
  if (init?.signal) setMaxListeners(0, init.signal);
  return fetch(input, init);
};

/** An MCP client connected to a tack server's `/mcp` over Streamable HTTP with a bearer token. */
export async function connectMcp(serverUrl: string, token: string, name = 'tack-test'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${serverUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } }, fetch: fetchUncapped }),
  );
  return client;
}
