/** The version `tack --version` prints and the MCP server reports (kept with package.json). */
export const VERSION = '0.9.0-beta';
