import type { Face } from './context.js';

/** The product the tack CLI names in its User-Agent (`tack-cli/<version>`). */
export const CLI_PRODUCT = 'tack-cli';
/** The product `tack mcp` names in its User-Agent (`tack-mcp/<version>`): its calls are the MCP face. */
export const MCP_PRODUCT = 'tack-mcp';

/**
 * The face of a `/v1` call made with a token, from its User-Agent: `tack mcp` and the CLI say
 * who they are; any other client is `api`. (A session is `web`, whatever its browser.)
 */
export function faceOfUserAgent(userAgent: string | undefined): Face {
  if (userAgent === undefined) return 'api';
  if (userAgent.startsWith(`${MCP_PRODUCT}/`)) return 'mcp';
  if (userAgent.startsWith(`${CLI_PRODUCT}/`)) return 'cli';
  return 'api';
}
