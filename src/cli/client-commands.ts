import { Argument, Command, InvalidArgumentError, Option } from 'commander';
import { aliasKey, resolveAlias } from '../vocabulary.js';
import type { FieldEntry, OperationEntry, OperationManifest } from '../operations/manifest.js';
import { examplesOf } from './command-examples.js';
import { completionValues } from './completion.js';
import { commandPath, GROUP_ALIASES, GROUP_DESCRIPTIONS, MORE_COMMANDS, OPTION_FLAGS, POSITIONAL_FIELDS } from './command-names.js';

/** Options of our own on every client command; a field with one of these names gets a prefix. */
const RESERVED = new Set(['json', 'all', 'help', 'version', 'yes']);

export interface ParsedCall {
  entry: OperationEntry;
  /** Params, query and body merged, keyed by API field name. */
  input: Record<string, unknown>;
  json: boolean;
  all: boolean;
  /** A delete, with what to ask before it (when stdin is a terminal and --yes was not given). */
  confirm?: string | undefined;
}

/** The help heading of the resource commands (`tack --help` lists each one under it). */
export const RESOURCES_HEADING = 'Resources (over /v1, with TACK_TOKEN at TACK_URL):';

interface CommandSpec {
  path: readonly string[];
  /** Body fields taken as arguments after the path parameters. */
  positional: readonly string[];
  summary: string;
}

/**
 * One command per operation of the table, grouped by resource (`tack tokens list`), built
 * from the JSON manifest: path parameters are arguments, query and body fields are options;
 * some operations have a second command under other words (MORE_COMMANDS). Nothing but
 * commander is loaded here; the action imports the HTTP side when it runs.
 */
export function addClientCommands(program: Command, manifest: OperationManifest): void {
  const groups = new Map<string, Command>();
  const taken = new Set<string>();
  const add = (entry: OperationEntry, spec: CommandSpec) => {
    let path = spec.path;
    if (taken.has(path.join(' '))) path = [entry.group, kebab(entry.name)];
    taken.add(path.join(' '));
    let parent = program;
    if (path.length > 1) {
      const groupName = path[0]!;
      let group = groups.get(groupName);
      if (!group) {
        group = program
          .command(groupName)
          .description(GROUP_DESCRIPTIONS[groupName] ?? `${groupName} operations`)
          .aliases(GROUP_ALIASES[groupName] ?? [])
          .helpGroup(RESOURCES_HEADING);
        groups.set(groupName, group);
      }
      parent = group;
    }
    addOperationCommand(parent, path, entry, spec);
  };
  for (const entry of manifest.operations) {
    add(entry, { path: commandPath(entry.name, entry.group), positional: POSITIONAL_FIELDS[entry.name] ?? [], summary: entry.summary });
    for (const more of MORE_COMMANDS[entry.name] ?? []) add(entry, more);
  }
}

function addOperationCommand(parent: Command, path: readonly string[], entry: OperationEntry, spec: CommandSpec): void {
  const cmd = parent.command(path[path.length - 1]!).description(spec.summary).helpGroup(RESOURCES_HEADING);
  const positional = [
    ...entry.fields.filter((f) => f.in === 'path'),
    ...spec.positional.map((n) => entry.fields.find((f) => f.name === n && f.in !== 'path')).filter((f) => f !== undefined),
  ];
  for (const f of positional) cmd.addArgument(argumentFor(f));
  const attribute = new Map<string, string>();
  const options = entry.fields.filter((f) => !positional.includes(f));
  for (const f of options) {
    for (const option of optionsFor(f, OPTION_FLAGS[entry.name]?.[f.name])) {
      attribute.set(option.attributeName(), f.name);
      cmd.addOption(option);
    }
  }
  cmd.option('--json', 'print the response exactly as JSON');
  if (entry.list) cmd.option('--all', 'follow next_cursor and print every page');
  const deletes = entry.method === 'DELETE';
  if (deletes) cmd.option('-y, --yes', 'do not ask before deleting (nothing is asked when stdin is not a terminal)');
  const examples = examplesOf(path, positional, options);
  cmd.addHelpText('after', `\nExamples:\n${examples.map((e) => `  ${e}\n`).join('')}\nCalls ${entry.method} /v1${entry.path} (${entry.scope === null ? 'any scope: the operation checks who may' : `needs the ${entry.scope} scope`}).`);
  cmd.action(async (...args: unknown[]) => {
    const opts = cmd.opts<Record<string, unknown>>();
    const input: Record<string, unknown> = {};
    positional.forEach((f, i) => {
      if (args[i] !== undefined) input[f.name] = args[i];
    });
    for (const [key, value] of Object.entries(opts)) {
      const field = attribute.get(key);
      if (field !== undefined && value !== undefined) input[field] = value === false && isNullable(entry, field) ? null : value;
    }
    const target = positional.map((f) => String(input[f.name] ?? '')).join(' ');
    const confirm = deletes && opts.yes !== true ? `${capitalized(path[path.length - 1]!)} ${GROUP_ALIASES[entry.group]?.[0] ?? entry.group} ${target}?` : undefined;
    const { runOperation } = await import('./run-operation.js');
    await runOperation({ entry, input, json: opts.json === true, all: opts.all === true, confirm });
  });
}

function capitalized(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function argumentFor(f: FieldEntry): Argument {
  const required = f.in === 'path' || f.required;
  const arg = new Argument(required ? `<${f.name}>` : `[${f.name}]`, describe(f, true) || f.name.replace(/_/g, ' '));
  if (f.enum && f.kind === 'string' && !f.aliases) arg.choices(f.enum);
  else if (f.kind !== 'string' || f.enum) arg.argParser(parserFor(f));
  if (f.enum) completionValues.set(arg, f.enum);
  return arg;
}

function isNullable(entry: OperationEntry, field: string): boolean {
  const f = entry.fields.find((x) => x.name === field);
  return f !== undefined && f.kind !== 'boolean' && f.nullable;
}

/**
 * The options of a field: `--<flag> <value>`, and `--no-<flag>` where it can be cleared (or,
 * for a boolean, set false); with `flags`, under the first flag, the others taken too (hidden).
 */
function optionsFor(f: FieldEntry, flags?: readonly string[]): Option[] {
  const [flag, ...others] = flags ?? [RESERVED.has(f.name) ? `field-${kebab(f.name)}` : kebab(f.name)];
  const shown = optionsUnder(f, flag!);
  const hidden = others.flatMap((other) => optionsUnder(f, other).map((option) => option.hideHelp()));
  // Each flag sets the same attribute: the field, however it was spelt.
  for (const option of hidden) option.attributeName = () => shown[0]!.attributeName();
  return [...shown, ...hidden];
}

function optionsUnder(f: FieldEntry, flag: string): Option[] {
  const help = describe(f, false, flag);
  if (f.kind === 'boolean') {
    // `--done` alone means true; `--done true` and `--done false` say it outright.
    const options = [new Option(`--${flag} [true|false]`, help).argParser(parserFor(f))];
    completionValues.set(options[0]!, ['true', 'false']);
    // A flag that defaults to false needs no way to say false; others (updates, filters) do.
    if (f.default !== false) options.push(new Option(`--no-${flag}`, `set ${f.name} to false`));
    return options;
  }
  const option = new Option(`--${flag} <${placeholder(f)}>`, help);
  if (f.enum && f.kind === 'string' && !f.aliases) option.choices(f.enum);
  else option.argParser(parserFor(f));
  if (f.enum) completionValues.set(option, f.enum);
  if (f.required) option.makeOptionMandatory();
  const options = [option];
  if (f.nullable) options.push(new Option(`--no-${flag}`, `clear ${f.name} (set it to null)`));
  return options;
}

function describe(f: FieldEntry, asArgument = false, flag = kebab(f.name)): string {
  const parts: string[] = [];
  if (f.required && !asArgument) parts.push('required');
  // The table speaks JSON ("null clears it"); on the command line, null is `--no-<flag>`.
  if (f.description) parts.push(f.nullable && !asArgument ? f.description.replace(/\bnull\b/g, `--no-${flag}`) : f.description);
  if (f.aliases && f.enum) parts.push(asArgument ? `one of ${f.enum.join(', ')} (or ${aliasWords(f).join(', ')})` : `or ${aliasWords(f).join(', ')}`);
  const format = f.format ? FORMATS[f.format] : undefined;
  if (format) parts.push(format);
  if (f.enum && f.kind === 'array') parts.push(`any of: ${f.enum.join(', ')}`);
  if (f.kind === 'array') parts.push(splitsOnCommas(f) ? 'repeat the option or separate values with commas' : 'repeat the option for each one (commas are kept)');
  if (f.kind === 'json') parts.push('as JSON');
  if ((f.name === 'body' || f.name === 'description') && f.kind === 'string') parts.push('`-` reads it from stdin');
  if (f.default !== undefined && !(f.kind === 'boolean' && f.default === false)) parts.push(`default: ${Array.isArray(f.default) ? f.default.join(',') : JSON.stringify(f.default)}`);
  return parts.join('; ');
}

const FORMATS: Record<string, string> = {
  'date-time': 'date and time with offset, such as 2030-01-31T09:00:00Z',
  date: 'a date, YYYY-MM-DD',
  email: 'an e-mail address',
  uri: 'a URL',
};

function placeholder(f: FieldEntry): string {
  if (f.enum && f.kind !== 'array' && f.enum.join('|').length <= 40) return f.enum.join('|');
  if (f.kind === 'integer' || f.kind === 'number') return 'n';
  if (f.kind === 'array') return 'values';
  if (f.kind === 'json') return 'json';
  if (f.format === 'date-time') return 'datetime';
  if (f.format === 'date' || f.format === 'email') return f.format;
  return f.name === 'body' ? 'text' : 'value';
}

/** The typed words that are not a value however it is spelt: `wip`, `doing`, `review`… */
function aliasWords(f: FieldEntry): string[] {
  const spellings = new Set((f.enum ?? []).map(aliasKey));
  return Object.keys(f.aliases ?? {}).filter((word) => !spellings.has(word));
}

/** A value of an enum field as typed: the value itself, or one of its aliases. */
function enumValue(f: FieldEntry, value: string): string {
  if (f.enum?.includes(value)) return value;
  const resolved = f.aliases ? resolveAlias(f.aliases, value) : undefined;
  if (resolved !== undefined) return resolved;
  throw new InvalidArgumentError(`Use one of ${f.enum?.join(', ')}${f.aliases ? ` (or ${aliasWords(f).join(', ')})` : ''}.`);
}

/**
 * A list of ids or of fixed values is split on commas (`--scopes read,write`, `--assignee-ids
 * me,mem_123`): neither can hold one. A list of free text (criteria, tags) never is: `--criteria
 * "Form renders, validates"` is one criterion; each repeated option is one item.
 */
function splitsOnCommas(f: FieldEntry): boolean {
  return f.enum !== undefined || f.references === true;
}

function parserFor(f: FieldEntry): (value: string, previous: unknown) => unknown {
  if (f.kind === 'array') {
    const item = (v: string) => {
      if (f.enum && !f.enum.includes(v)) throw new InvalidArgumentError(`${v} is not one of ${f.enum.join(', ')}.`);
      return parseScalar(f.items ?? 'string', v, f.name);
    };
    const items = splitsOnCommas(f)
      ? (value: string) =>
          value
            .split(',')
            .map((v) => v.trim())
            .filter((v) => v.length > 0)
      : (value: string) => [value];
    return (value, previous) => [...(Array.isArray(previous) ? previous : []), ...items(value).map(item)];
  }
  if (f.enum && f.kind === 'string') return (value) => enumValue(f, value);
  return (value) => parseScalar(f.kind, value, f.name);
}

function parseScalar(kind: FieldEntry['kind'], value: string, name: string): unknown {
  switch (kind) {
    case 'integer':
    case 'number': {
      const n = Number(value);
      if (value.trim() === '' || !Number.isFinite(n) || (kind === 'integer' && !Number.isInteger(n))) {
        throw new InvalidArgumentError(`${name} must be ${kind === 'integer' ? 'a whole number' : 'a number'}.`);
      }
      return n;
    }
    case 'boolean':
      if (value === 'true' || value === 'false') return value === 'true';
      throw new InvalidArgumentError(`${name} must be true or false.`);
    case 'json':
      try {
        return JSON.parse(value);
      } catch {
        throw new InvalidArgumentError(`${name} must be JSON.`);
      }
    default:
      return value;
  }
}

export function kebab(name: string): string {
  return name
    .replace(/_/g, '-')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase();
}
