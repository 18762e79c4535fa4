import { z } from 'zod';
import type { RawJson } from '../db/raw-json.js';
import type { Ctx, Scope } from '../domain/context.js';
import { anyText, references } from '../domain/fields.js';
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

/** What an in-process caller hands an HTTP-bound operation: path, query and body merged, before parsing. */
export type CallInputOf<P extends Obj, Q extends Obj, B extends Obj, R extends Renames = {}> = Renamed<Given<P>, R> & Given<Q> & Given<B>;

/** A part's fields as a caller gives them; nothing for a part the operation does not take (zod types it `Record<string, never>`). */
type Given<S extends Obj> = keyof S['shape'] extends never ? {} : z.input<S>;

/** Resource group, for OpenAPI tags and CLI grouping. */
export type OperationGroup = 'me' | 'members' | 'tokens' | 'snippets' | 'boards' | 'cards' | 'criteria' | 'comments' | 'todos' | 'milestones' | 'jobs' | 'sessions' | 'search' | 'events' | 'webhooks';

/**
 * What `run` may answer: the output schema's value, or, for reads that let Postgres serialize
 * it, its JSON text (`RawJson`, the same bytes). Only `run` sees the union: HTTP and MCP send
 * the text, in-process callers get the value (parsed once, in `answerOf`).
 */
export type RunResult<O extends z.ZodType | undefined> = O extends z.ZodType ? z.input<O> | RawJson<z.output<O>> : void;

/** What an operation is and does, whoever calls it; nothing here knows of HTTP. */
interface CoreFields<O extends z.ZodType | undefined> {
  /** The operationId: the HTTP route, MCP tool and CLI command are all named from it. */
  name: string;
  summary: string;
  group: OperationGroup;
  /**
   * The scope a caller needs, and for a write a writer role (viewers read only), checked by
   * `execute` before the domain runs. Null: any caller, with any scope and role; the domain
   * function decides alone (ending one's own token or session, contract §9).
   */
  scope: Scope | null;
  /** The answer's schema; omit when there is none (204 No Content over HTTP). */
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
}

/**
 * An operation without a transport (`defineCoreOperation`): one input object, read by in-process
 * callers (the Slack face, the jobs) only. An HTTP-bound operation is `defineOperation`.
 */
export interface CoreSpec<I extends Obj, O extends z.ZodType | undefined> extends CoreFields<O> {
  /** Every field the operation takes; strict (a field it does not define is refused). */
  input?: I;
  /** A read runs on the pool and needs no writer role; false (a write) by default. */
  readOnly?: boolean;
  run(ctx: Ctx, input: z.output<I>): Promise<RunResult<O>>;
}

/** An operation that `/v1` exposes: its core, and its HTTP binding (method, path, and where each field travels). */
export interface OperationSpec<P extends Obj, Q extends Obj, B extends Obj, O extends z.ZodType | undefined, R extends Renames = {}> extends CoreFields<O> {
  method: HttpMethod;
  /** Path under /v1 in OpenAPI style: `/snippets/{id}`. */
  path: string;
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
  run(ctx: Ctx, input: InputOf<P, Q, B, R>): Promise<RunResult<O>>;
}

/** An operation with its types erased, as execute and in-process callers hold it: no transport. */
export interface OperationCore {
  name: string;
  summary: string;
  group: OperationGroup;
  scope: Scope | null;
  /** Every field as one strict object, by input name: MCP tool input, CLI options, in-process calls. */
  input: Obj;
  /** Fields that take `today` and `tomorrow` as well as a date (resolved in the caller's time zone). */
  dueDateFields: readonly string[];
  /** The operation names things (path parameters, or ids, slugs and refs in its input): it can answer 404. */
  namesThings: boolean;
  /** Fields that take any text, NUL included (a search query, a cursor): the domain reads them itself. */
  anyTextFields: readonly string[];
  /** Fields of which a call must give at least one (a PATCH must change something); empty for most. */
  changes: readonly string[];
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
  /** How `/v1` exposes it; undefined for an operation only in-process callers run. */
  http: HttpBinding | undefined;
  run(ctx: Ctx, input: Record<string, unknown>): Promise<unknown>;
}

/** Where an operation lives in `/v1`, and where each of its fields travels in the request. */
export interface HttpBinding {
  method: HttpMethod;
  path: string;
  /** Keyed by the URL's names (`{ref}`), as HTTP validates and describes them. */
  params: Obj | undefined;
  query: Obj | undefined;
  body: Obj | undefined;
  /** The input name of each path parameter, by its URL name (itself unless `pathInput` says otherwise). */
  pathInput: Readonly<Record<string, string>>;
  /** Path and query fields whose text is read as a number or boolean. */
  textTypes: Readonly<Record<string, TextType>>;
}

/**
 * An operation of the table: its core with its HTTP binding, whose fields are also spread on
 * it, so the faces generated from the table (routes, OpenAPI, MCP, CLI) read `op.method`,
 * `op.path` as they always have.
 */
export interface Operation extends OperationCore, HttpBinding {
  http: HttpBinding;
}

/** An input schema that keeps, in its type, what a caller hands it (`z.input`) and what `run` gets. */
type InputSchema<In, Out> = Obj & z.ZodType<Out, In>;

/**
 * A core that keeps its name, input and output schemas in its type, so code that calls it
 * in-process (the Slack face, the jobs) hands it typed input and reads its answer as
 * `z.output` of its schema: a field renamed in a schema fails the build where a view reads it.
 */
export interface TypedCore<N extends string = string, O extends z.ZodType | undefined = z.ZodType | undefined, In = Record<string, unknown>, Out = Record<string, unknown>>
  extends OperationCore {
  name: N;
  output: O;
  input: InputSchema<In, Out>;
}

/** An HTTP-bound operation with its types kept (see `TypedCore`). */
export interface TypedOperation<N extends string = string, O extends z.ZodType | undefined = z.ZodType | undefined, In = Record<string, unknown>, Out = Record<string, unknown>>
  extends Operation {
  name: N;
  output: O;
  input: InputSchema<In, Out>;
}

/** What an operation answers with, as its output schema describes it (undefined when it has none). */
export type OutputOf<Op extends OperationCore> = Op extends TypedCore<string, infer O> ? (O extends z.ZodType ? z.output<O> : undefined) : unknown;

/** What an in-process caller hands an operation: its input schema's input type. */
export type CallInput<Op extends OperationCore> = z.input<Op['input']>;

/** The flags and derived field lists of a core, from its spec and merged input shape. */
function coreOf(spec: CoreFields<z.ZodType | undefined>, shape: z.core.$ZodLooseShape, flags: { readOnly: boolean; idempotent: boolean; destructive: boolean; namesThings: boolean; changes: readonly string[] }) {
  const fields = shape as Record<string, z.ZodType>;
  return {
    name: spec.name,
    summary: spec.summary,
    group: spec.group,
    scope: spec.scope,
    // Every part is strict: a field the operation does not define is refused, never stripped.
    input: z.strictObject(shape),
    dueDateFields: Object.keys(fields).filter((key) => reaches(fields[key]!, (s) => s === dueDate, false)),
    anyTextFields: Object.keys(fields).filter((key) => reaches(fields[key]!, (s) => anyText.has(s), false)),
    namesThings: flags.namesThings || Object.values(fields).some((field) => reaches(field, (s) => references.has(s), true)),
    changes: flags.changes,
    output: spec.output,
    status: spec.status ?? (spec.output ? 200 : 204),
    readOnly: flags.readOnly,
    idempotent: spec.idempotent ?? flags.idempotent,
    destructive: spec.destructive ?? flags.destructive,
    openWorld: spec.openWorld ?? false,
    shownOnce: spec.shownOnce,
    changesAuth: spec.changesAuth ?? false,
    noStore: spec.noStore ?? false,
    ownTransactions: spec.ownTransactions ?? false,
  };
}

/**
 * An operation without a transport: the Slack-only ones (channel subscriptions), which `/v1`,
 * MCP and the CLI do not offer. Called in-process with `callOperation`, like any other.
 */
export function defineCoreOperation<I extends Obj = Empty, O extends z.ZodType | undefined = undefined, const N extends string = string>(
  spec: CoreSpec<I, O> & { name: N },
): TypedCore<N, O, Given<I>, z.output<I>> {
  const readOnly = spec.readOnly ?? false;
  const core = coreOf(spec, spec.input?.shape ?? {}, { readOnly, idempotent: readOnly, destructive: false, namesThings: false, changes: [] });
  return {
    ...core,
    output: spec.output as O,
    input: core.input as unknown as InputSchema<Given<I>, z.output<I>>,
    http: undefined,
    // Typed by the spec's own input schema, which every caller validates with before calling.
    run: spec.run as (ctx: Ctx, input: Record<string, unknown>) => Promise<unknown>,
    name: spec.name,
  };
}

/**
 * An operation that `/v1` exposes: a core (`defineCoreOperation`'s) with its HTTP binding. The
 * merged input is path, query and body together (path parameters under their `pathInput` names).
 */
export function defineOperation<
  P extends Obj = Empty,
  Q extends Obj = Empty,
  B extends Obj = Empty,
  O extends z.ZodType | undefined = undefined,
  const R extends Renames = {},
  const N extends string = string,
>(spec: OperationSpec<P, Q, B, O, R> & { name: N }): TypedOperation<N, O, CallInputOf<P, Q, B, R>, InputOf<P, Q, B, R>> {
  // Every part is strict: a field the operation does not define is refused, never stripped.
  const params = spec.params?.strict();
  const query = spec.query?.strict();
  const body = spec.body?.strict();
  const renamed: Record<string, string | undefined> = spec.pathInput ?? {};
  const pathInput = Object.fromEntries(Object.keys(params?.shape ?? {}).map((name) => [name, renamed[name] ?? name]));
  const inputParams = Object.fromEntries(Object.entries(params?.shape ?? {}).map(([name, schema]) => [pathInput[name]!, schema]));
  const shape = { ...inputParams, ...query?.shape, ...body?.shape };
  const http: HttpBinding = {
    method: spec.method,
    path: spec.path,
    params,
    query,
    body,
    pathInput,
    // Keyed by the names path and query values arrive under (the URL's, for path parameters).
    textTypes: textTypes({ ...params?.shape, ...query?.shape }),
  };
  const core = coreOf(spec, shape, {
    readOnly: spec.method === 'GET',
    idempotent: spec.method === 'GET' || spec.method === 'DELETE',
    destructive: spec.method === 'DELETE' || spec.method === 'PATCH',
    namesThings: params !== undefined,
    // A PATCH must change something: at least one of its body's fields.
    changes: spec.method === 'PATCH' && body ? Object.keys(body.shape) : [],
  });
  return {
    ...core,
    ...http,
    http,
    name: spec.name,
    output: spec.output as O,
    input: core.input as unknown as InputSchema<CallInputOf<P, Q, B, R>, InputOf<P, Q, B, R>>,
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
