import { z } from 'zod';
import type { Ctx, Scope } from '../domain/context.js';
import type { JsonText } from '../domain/json-text.js';

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
  group: 'me' | 'members' | 'tokens' | 'snippets' | 'boards' | 'cards' | 'criteria' | 'todos' | 'milestones' | 'jobs' | 'sessions';
  method: HttpMethod;
  /** Path under /v1 in OpenAPI style: `/snippets/{id}`. */
  path: string;
  scope: Scope;
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
  /** 200 by default; 201 for creations. */
  status?: 200 | 201 | 204;
  /** True when repeating the call with the same input changes nothing more (PUT-like). */
  idempotent?: boolean;
  destructive?: boolean;
  /** A response field holding a secret shown in this response only; clients tell people to copy it. */
  shownOnce?: string;
  /** The write changes who a token is (tokens, members): drop cached principals on commit. */
  changesAuth?: boolean;
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
  scope: Scope;
  /** Keyed by the URL's names (`{ref}`), as HTTP validates and describes them. */
  params: Obj | undefined;
  query: Obj | undefined;
  body: Obj | undefined;
  /** The input name of each path parameter, by its URL name (itself unless `pathInput` says otherwise). */
  pathInput: Readonly<Record<string, string>>;
  /** params, query and body as one object: MCP tool input, CLI options. */
  input: Obj;
  output: z.ZodType | undefined;
  status: 200 | 201 | 204;
  readOnly: boolean;
  idempotent: boolean;
  destructive: boolean;
  shownOnce: string | undefined;
  changesAuth: boolean;
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
  const renamed: Record<string, string | undefined> = spec.pathInput ?? {};
  const pathInput = Object.fromEntries(Object.keys(spec.params?.shape ?? {}).map((name) => [name, renamed[name] ?? name]));
  const params = Object.fromEntries(Object.entries(spec.params?.shape ?? {}).map(([name, schema]) => [pathInput[name]!, schema]));
  const shape = { ...params, ...spec.query?.shape, ...spec.body?.shape };
  return {
    name: spec.name,
    summary: spec.summary,
    group: spec.group,
    method: spec.method,
    path: spec.path,
    scope: spec.scope,
    params: spec.params,
    query: spec.query,
    body: spec.body,
    pathInput,
    input: z.object(shape),
    output: spec.output as O,
    status: spec.status ?? (spec.output ? 200 : 204),
    readOnly: spec.method === 'GET',
    idempotent: spec.idempotent ?? (spec.method === 'GET' || spec.method === 'DELETE'),
    destructive: spec.destructive ?? spec.method === 'DELETE',
    shownOnce: spec.shownOnce,
    changesAuth: spec.changesAuth ?? false,
    ownTransactions: spec.ownTransactions ?? false,
    // The spec's run is typed by its own schemas; every face validates input with those same
    // schemas before calling, so widening the parameter here is sound.
    run: spec.run as (ctx: Ctx, input: Record<string, unknown>) => Promise<unknown>,
  };
}
