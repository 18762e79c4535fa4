/** Marks the type a `RawJson` holds; never set at run time. */
declare const holds: unique symbol;

/**
 * JSON text that Postgres serialized (`row_to_json`, `json_build_object`): the exact bytes
 * `JSON.stringify` would make of a `T`. A read can answer it as is, so a row costs Node no
 * parsing, presentation or serialization: the HTTP and MCP faces send `text` untouched. In-process
 * callers never see it: the operation core parses it once (`answerOf` in
 * src/operations/call.ts) and hands them the `T`.
 */
export class RawJson<T> {
  declare readonly [holds]: T;

  constructor(readonly text: string) {}
}
