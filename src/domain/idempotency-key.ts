/**
 * What an idempotency key may be, on every face that takes one (the `Idempotency-Key` header
 * of `/v1`, the `idempotency_key` argument of MCP write tools): 1 to 255 visible ASCII
 * characters. No imports, so the stdio MCP server can check a key without loading the domain.
 */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export const IDEMPOTENCY_KEY_MESSAGE = 'must be 1 to 255 visible ASCII characters';
