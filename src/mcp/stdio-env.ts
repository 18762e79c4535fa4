import { CliError, EXIT } from '../client/exit.js';
import { clientTimeoutMs, DEFAULT_URL, normalizeUrl, type ClientTarget } from '../client/target.js';

/**
 * URL and token for `tack mcp`: `TACK_TOKEN` only (contract section 7). An agent started
 * without a token of its own must not act as whoever ran `tack login` on this machine, so
 * the stored login is never read: neither its token nor its URL (a token is never sent to a
 * server it was not configured for). Exit 2 (usage) without it.
 */
export function mcpTarget(env: NodeJS.ProcessEnv = process.env): ClientTarget {
  const token = env.TACK_TOKEN?.trim();
  if (!token) {
    throw new CliError(
      'TACK_TOKEN is not set: `tack mcp` acts with TACK_TOKEN only, never with the login stored by `tack login`. ' +
        'Set it to the token the agent acts with (make one with `tack tokens create --name <agent> --scopes read,write --agent`).',
      EXIT.usage,
    );
  }
  return { url: env.TACK_URL ? normalizeUrl(env.TACK_URL) : DEFAULT_URL, token, timeoutMs: clientTimeoutMs(env) };
}

/** Which tools `tack mcp` offers (of those its token can call). */
export interface McpToolChoice {
  /** `TACK_MCP_TOOLSETS`: the groups of tools offered (getMe always); all when unset. */
  toolsets?: string[] | undefined;
  /** `TACK_MCP_READ_ONLY=1`: the read tools only, whatever the token may do. */
  readOnly: boolean;
}

export function mcpToolChoice(env: NodeJS.ProcessEnv = process.env): McpToolChoice {
  const raw = env.TACK_MCP_TOOLSETS?.trim();
  const toolsets = raw ? raw.split(',').map((s) => s.trim().toLowerCase()).filter((s) => s.length > 0) : undefined;
  const readOnly = env.TACK_MCP_READ_ONLY?.trim().toLowerCase() ?? '';
  if (!['', '0', '1', 'true', 'false'].includes(readOnly)) throw new CliError(`TACK_MCP_READ_ONLY is 1 (read tools only) or 0, not "${env.TACK_MCP_READ_ONLY}"`, EXIT.usage);
  return { toolsets, readOnly: readOnly === '1' || readOnly === 'true' };
}
