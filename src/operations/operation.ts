import { z } from 'zod';
import type { Ctx, Scope } from '../domain/context.js';
import { anyText, references } from '../domain/fields.js';
import type { JsonText } from '../domain/json-text.js';
import { dueDate } from '../domain/todo-due.js';
import type { TextType } from './input-validation.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

type Obj = z.ZodObject;
type Empty = z.ZodObject<{}>;

/** Input names of path parameters, by URL name (see `pathInput`). */
type Renames = Record<string, string>;

/** An object type with keys renamed by `R` (the others kept). */
type Renamed<T, R extends Renames> = { [K in keyof T as K extends keyof R ? R[K] : K]: T[K] };

/** What the domain function of an operation receives: path, query and body merged. */
export type InputOf<P extends Obj, Q extends Obj, B extends Obj, R extends Renames = {}> = Renamed<z.output<P>, R> & z.output<Q> & z.output<B>;

export interface OperationSpec<P extends Obj, Q extends Obj, B extends Obj, O extends z.ZodType | undefined, R extends Renames = {}> {
  /** The operationId: the HTTP route, MCP tool and CLI command are all named from it. */
  name: string;
  summary: string;
  /** Resource group, for OpenAPI tags and CLI grouping. */
  group: 'me' | 'members' | 'tokens' | 'snippets' | 'boards' | 'cards' | 'criteria' | 'todos' | 'milestones' | 'jobs' | 'sessions' | 'events' | 'webhooks';
  method: HttpMethod;
  /** Path under /v1 in OpenAPI style: `/snippets/{id}`. */
  path: string;
  /**
   * The scope a caller needs, and for a write a writer role (viewers read only), checked by
   * `execute` before the domain runs. Null: any caller, with any scope and role; the domain
   * function decides alone (ending one's own token or session, contract §9).
   */
  scope: Scope | null;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * Path parameters that the merged input (MCP tool arguments, CLI arguments, the domain's
   * input) names otherwise than the URL, because a body field has the URL's name:
   * `PATCH /milestones/{ref}` takes a new `ref` in its body, so with `{ref: 'milestone'}` its
   * path `ref` arrives as `milestone`.
   */
  pathInput?: R & { [K in keyof R]: K extends keyof z.output<P> ? string : never };
  /** The response body schema; omit for 204 No Content. */
  output?: O;
  /** 200 by default; 201 for creations; 202 for work accepted to be done later (a redelivery). */
  status?: 200 | 201 | 202 | 204;
  /** True when repeating the call with the same input changes nothing more (PUT-like). */
  idempotent?: boolean;
  /** Overwrites or removes what was there (MCP's destructiveHint); PATCH and DELETE by default. */
  destructive?: boolean;
  /** Reaches beyond tack, such as posting to Slack (MCP's openWorldHint); false by default. */
  openWorld?: boolean;
  /** A response field holding a secret shown in this response only; clients tell people to copy it. */
  shownOnce?: string;
  /** The write changes who a token is (tokens, members): drop cached principals on commit. */
  changesAuth?: boolean;
  /** The answer carries a secret or a sign-in link: `Cache-Control: no-store`, so no cache keeps it. */
  noStore?: boolean;
  /**
   * The operation commits its own steps (a job claims, posts to Slack, then records each
   * message): `execute` runs it on the pool instead of inside one transaction of its own.
   */
  ownTransactions?: boolean;
  /** The answer, or for reads that let Postgres serialize it, its JSON text (the same bytes). */
  run(ctx: Ctx, input: InputOf<P, Q, B, R>): Promise<O extends z.ZodType ? z.input<O> | JsonText : void>;
}

/** An operation with its types erased, as the table and the faces hold it. */
export interface Operation {
  name: string;
  summary: string;
  group: OperationSpec<Obj, Obj, Obj, undefined>['group'];
  method: HttpMethod;
  path: string;
  scope: Scope | null;
  /** Keyed by the URL's names (`{ref}`), as HTTP validates and describes them. */
  params: Obj | undefined;
  query: Obj | undefined;
  body: Obj | undefined;
  /** The input name of each path parameter, by its URL name (itself unless `pathInput` says otherwise). */
  pathInput: Readonly<Record<string, string>>;
  /** params, query and body as one object: MCP tool input, CLI options. */
  input: Obj;
  /** Path and query fields whose text is read as a number or boolean. */
  textTypes: Readonly<Record<string, TextType>>;
  /** Fields that take `today` and `tomorrow` as well as a date (resolved in the caller's time zone). */
  dueDateFields: readonly string[];
  /** The operation names things (path parameters, or ids, slugs and refs in its query or body): it can answer 404. */
  namesThings: boolean;
  /** Fields that take any text, NUL included (a search query, a cursor): the domain reads them itself. */
  anyTextFields: readonly string[];
  output: z.ZodType | undefined;
  status: 200 | 201 | 202 | 204;
  readOnly: boolean;
  idempotent: boolean;
  destructive: boolean;
  openWorld: boolean;
  shownOnce: string | undefined;
  changesAuth: boolean;
  noStore: boolean;
  ownTransactions: boolean;
  run(ctx: Ctx, input: Record<string, unknown>): Promise<unknown>;
}

/**
 * An operation that keeps its name and output schema in its type, so code that calls it
 * in-process (the Slack face, the jobs) reads its answer as `z.output` of that schema: a
 * field renamed in the schema fails the build where a view reads it.
 */
export interface TypedOperation<N extends string = string, O extends z.ZodType | undefined = z.ZodType | undefined> extends Operation {
  name: N;
  output: O;
}

/** What an operation answers with, as its output schema describes it (undefined for 204). */
export type OutputOf<Op extends Operation> = Op extends TypedOperation<string, infer O> ? (O extends z.ZodType ? z.output<O> : undefined) : unknown;

export function defineOperation<
  P extends Obj = Empty,
  Q extends Obj = Empty,
  B extends Obj = Empty,
  O extends z.ZodType | undefined = undefined,
  const R extends Renames = {},
  const N extends string = string,
>(spec: OperationSpec<P, Q, B, O, R> & { name: N }): TypedOperation<N, O> {
  // Every part is strict: a field the operation does not define is refused, never stripped.
  const params = spec.params?.strict();
  const query = spec.query?.strict();
  const body = spec.body?.strict();
  const renamed: Record<string, string | undefined> = spec.pathInput ?? {};
  const pathInput = Object.fromEntries(Object.keys(params?.shape ?? {}).map((name) => [name, renamed[name] ?? name]));
  const inputParams = Object.fromEntries(Object.entries(params?.shape ?? {}).map(([name, schema]) => [pathInput[name]!, schema]));
  const shape = { ...inputParams, ...query?.shape, ...body?.shape };
  return {
    name: spec.name,
    summary: spec.summary,
    group: spec.group,
    method: spec.method,
    path: spec.path,
    scope: spec.scope,
    params,
    query,
    body,
    pathInput,
    input: z.strictObject(shape),
    // Keyed by the names path and query values arrive under (the URL's, for path parameters).
    textTypes: textTypes({ ...params?.shape, ...query?.shape }),
    dueDateFields: Object.keys(shape).filter((key) => reaches(shape[key]!, (s) => s === dueDate, false)),
    anyTextFields: Object.keys(shape).filter((key) => reaches(shape[key]!, (s) => anyText.has(s), false)),
    namesThings: params !== undefined || Object.values(shape).some((field) => reaches(field, (s) => references.has(s), true)),
    output: spec.output as O,
    status: spec.status ?? (spec.output ? 200 : 204),
    readOnly: spec.method === 'GET',
    idempotent: spec.idempotent ?? (spec.method === 'GET' || spec.method === 'DELETE'),
    destructive: spec.destructive ?? (spec.method === 'DELETE' || spec.method === 'PATCH'),
    openWorld: spec.openWorld ?? false,
    shownOnce: spec.shownOnce,
    changesAuth: spec.changesAuth ?? false,
    noStore: spec.noStore ?? false,
    ownTransactions: spec.ownTransactions ?? false,
    // The spec's run is typed by its own schemas; every face validates input with those same
    // schemas before calling, so widening the parameter here is sound.
    run: spec.run as (ctx: Ctx, input: Record<string, unknown>) => Promise<unknown>,
  };
}

/** The JSON type of each field that arrives as text but is not text. */
function textTypes(shape: Record<string, z.ZodType>): Record<string, TextType> {
  const types: Record<string, TextType> = {};
  for (const [key, field] of Object.entries(shape)) {
    const json = z.toJSONSchema(field, { io: 'input', unrepresentable: 'any' }) as { type?: unknown; anyOf?: { type?: unknown }[] };
    const type = json.type ?? json.anyOf?.find((s) => s.type !== 'null')?.type;
    if (type === 'integer' || type === 'number' || type === 'boolean') types[key] = type;
  }
  return types;
}

/**
 * Whether `test` holds for `schema` or a schema it was made from: through optional,
 * nullable, default and described copies, and, with `deep`, into list items and union members.
 */
export function reaches(schema: z.core.$ZodType, test: (s: z.core.$ZodType) => boolean, deep: boolean): boolean {
  if (test(schema)) return true;
  const def = schema._zod.def as { innerType?: z.core.$ZodType; element?: z.core.$ZodType; options?: z.core.$ZodType[]; in?: z.core.$ZodType };
  const next = [schema._zod.parent, def.innerType, ...(deep ? [def.element, def.in, ...(def.options ?? [])] : [])];
  return next.some((s) => s !== undefined && reaches(s, test, deep));
}
