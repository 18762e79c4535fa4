import { Transform, type Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { INVALID_REQUEST, invalidMessage, malformedInitialize, PARSE_ERROR, unreadable } from './json-rpc-input.js';

/** A line longer than this (in characters) is not read whole: the API takes bodies of up to 4 MiB. */
const MAX_LINE = 8 * 1024 * 1024;

/**
 * What `tack mcp` reads before the SDK's stdio transport does: one JSON-RPC message per line,
 * passed on as it came. A line the SDK would drop without a word is answered on `out`
 * instead, as JSON-RPC says: one that is not JSON with a parse error, a batch (the stdio
 * transport reads single messages) or a message JSON-RPC does not take (`invalidMessage`) as
 * an invalid request; and an `initialize` without an initialize's params as invalid params
 * (`malformedInitialize`). Blank lines are skipped.
 */
export function jsonRpcLines(out: Writable): Transform {
  // A character split between two chunks is joined before lines are cut.
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let skipping = false;
  const answer = (code: number, message: string) => out.write(`${unreadable(code, message)}\n`);
  const read = (line: string, push: (text: string) => void) => {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (text.trim().length === 0) return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      answer(PARSE_ERROR, 'Parse error: a line that is not valid JSON.');
      return;
    }
    if (Array.isArray(message)) {
      answer(INVALID_REQUEST, 'Invalid Request: tack mcp reads one message per line, not batches.');
      return;
    }
    const refused = invalidMessage(message) ?? malformedInitialize(message);
    if (refused !== undefined) out.write(`${refused}\n`);
    else push(`${text}\n`);
  };
  return new Transform({
    decodeStrings: false,
    transform(chunk: Buffer | string, _encoding, done) {
      const lines = (pending + (typeof chunk === 'string' ? chunk : decoder.write(chunk))).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (skipping) skipping = false;
        else read(line, (text) => this.push(text));
      }
      if (pending.length > MAX_LINE) {
        if (!skipping) answer(PARSE_ERROR, `Parse error: a line longer than ${MAX_LINE} characters.`);
        pending = '';
        skipping = true;
      }
      done();
    },
    flush(done) {
      pending += decoder.end();
      if (!skipping) read(pending, (text) => this.push(text));
      done();
    },
  });
}
