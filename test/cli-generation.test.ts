import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { addClientCommands } from '../src/cli/client-commands.js';
import { EXAMPLES } from '../src/cli/command-examples.js';
import { commandPath, MORE_COMMANDS } from '../src/cli/command-names.js';
import { requestFor } from '../src/client/operation-request.js';
import { parseOperationInput } from '../src/operations/operation-input.js';
import { toolFor } from '../src/mcp/tools.js';
import { describeOperation, describeOperations } from '../src/operations/manifest.js';
import { operations } from '../src/operations/index.js';
import { defineOperation } from '../src/operations/operation.js';
import { queryBoolean } from '../src/domain/fields.js';
import { WORKFLOW_STATUSES } from '../src/vocabulary.js';

/** An operation the table does not hold (yet): every face must still pick it up. */
const archiveCard = defineOperation({
  name: 'archiveCard',
  summary: 'Archive a card',
  group: 'cards',
  method: 'POST',
  path: '/boards/{board}/cards/{id}/archive',
  scope: 'write',
  params: z.object({ id: z.string().describe('Card id or ref'), board: z.string() }),
  query: z.object({ dry_run: z.enum(['true', 'false']).optional() }),
  body: z.object({
    reason: z.string().min(1),
    notify: z.boolean().optional(),
    labels: z.array(z.enum(['stale', 'dup'])).optional(),
    due_on: z.string().nullable().optional(),
    count: z.number().int().optional(),
  }),
  output: z.object({ id: z.string(), archived: z.boolean() }),
  run: async (_ctx, input) => ({ id: input.id, archived: true }),
});

/** Help as `tack` would print it; commander's settings must be in place before commands are added. */
function helpOf(entries: Parameters<typeof addClientCommands>[1], args: string[]): string {
  let out = '';
  const program = new Command('tack').exitOverride().configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (out += s) });
  addClientCommands(program, entries);
  try {
    program.parse(['node', 'tack', ...args]);
  } catch {
    // commander ends --help by throwing under exitOverride.
  }
  return out;
}

describe('generation from the table', () => {
  it('names commands from the operationId when no name is listed', () => {
    expect(commandPath('archiveCard', 'cards')).toEqual(['cards', 'archive']);
    expect(commandPath('listCardComments', 'cards')).toEqual(['cards', 'list-comments']);
    expect(commandPath('listSnippetVersions', 'snippets')).toEqual(['snippets', 'versions']);
    expect(commandPath('createTodo', 'todos')).toEqual(['todos', 'add']);
    expect(commandPath('getMilestoneStatus', 'milestones')).toEqual(['milestones', 'status']);
    expect(commandPath('getMe', 'me')).toEqual(['me']);
  });

  it('takes the listed body fields as arguments: todos add <title>, cards move <id> [workflow_status]', () => {
    const createTodo = defineOperation({
      name: 'createTodo',
      summary: 'Add a todo',
      group: 'todos',
      method: 'POST',
      path: '/todos',
      scope: 'write',
      body: z.object({ title: z.string(), priority: z.enum(['urgent', 'high', 'medium', 'low']).default('medium') }),
      output: z.object({ id: z.string() }),
      run: async () => ({ id: 'todo_1' }),
    });
    const moveCard = defineOperation({
      name: 'moveCard',
      summary: 'Move a card',
      group: 'cards',
      method: 'PATCH',
      path: '/cards/{id}',
      scope: 'write',
      params: z.object({ id: z.string() }),
      body: z.object({ workflow_status: z.enum(['backlog', 'in_progress', 'in_review', 'done']).optional(), title: z.string().optional() }),
      output: z.object({ id: z.string() }),
      run: async () => ({ id: 'crd_1' }),
    });
    const manifest = { operations: [describeOperation(createTodo), describeOperation(moveCard)] };
    const add = helpOf(manifest, ['todos', 'add', '--help']);
    expect(add).toContain('Usage: tack todos add [options] <title>');
    expect(add).not.toContain('--title');
    expect(add).toContain('--priority <urgent|high|medium|low>');
    const move = helpOf(manifest, ['cards', 'move', '--help']);
    expect(move).toContain('Usage: tack cards move [options] <id> [workflow_status]');
    expect(move).toContain('--title <value>');
    expect(helpOf(manifest, ['cards', 'move', 'ENG-1', 'sideways'])).toContain("'sideways' is invalid for argument 'workflow_status'");
  });

  it('describes fields for clients: location, kind, path order, nullability', () => {
    const entry = describeOperation(archiveCard);
    expect(entry.fields.map((f) => [f.name, f.in, f.kind, f.required])).toEqual([
      ['board', 'path', 'string', true],
      ['id', 'path', 'string', true],
      ['dry_run', 'query', 'string', false],
      ['reason', 'body', 'string', true],
      ['notify', 'body', 'boolean', false],
      ['labels', 'body', 'array', false],
      ['due_on', 'body', 'string', false],
      ['count', 'body', 'integer', false],
    ]);
    expect(entry.fields.find((f) => f.name === 'labels')).toMatchObject({ items: 'string', enum: ['stale', 'dup'] });
    expect(entry.fields.find((f) => f.name === 'due_on')?.nullable).toBe(true);
    expect(entry.outputSchema).toMatchObject({ type: 'object', required: ['id', 'archived'] });
    expect(JSON.stringify(entry.outputSchema)).not.toContain('additionalProperties');
  });

  it('reads union-typed fields as a command line takes them, and attaches the vocabulary aliases', () => {
    const listThings = defineOperation({
      name: 'listThings',
      summary: 'List things',
      group: 'cards',
      method: 'GET',
      path: '/things',
      scope: 'read',
      query: z.object({
        owner: z.union([z.literal('me'), z.string().min(3)]).optional(),
        done: queryBoolean.optional(),
        size: z.union([z.literal('s'), z.literal('m')]).optional(),
        state: z.enum(WORKFLOW_STATUSES).optional(),
        shape: z.union([z.string(), z.object({ a: z.string() })]).optional(),
      }),
      output: z.object({ ok: z.boolean() }),
      run: async () => ({ ok: true }),
    });
    const entry = describeOperation(listThings);
    const field = (name: string) => entry.fields.find((f) => f.name === name)!;
    expect(field('owner')).toMatchObject({ kind: 'string' });
    expect(field('owner').enum).toBeUndefined();
    expect(field('done')).toMatchObject({ kind: 'boolean' });
    expect(field('size')).toMatchObject({ kind: 'string', enum: ['s', 'm'] });
    expect(field('state').aliases).toMatchObject({ wip: 'in_progress', review: 'in_review' });
    expect(field('size').aliases).toBeUndefined();
    expect(field('shape')).toMatchObject({ kind: 'json' });
    const help = helpOf({ operations: [entry] }, ['cards', 'list-things', '--help']);
    expect(help).toContain('--owner <value>');
    expect(help).toContain('--done [true|false]');
    expect(help).toContain('--size <s|m>');
  });

  it('never tells a person to type null: every command of the table says --no-<field> instead', () => {
    const manifest = describeOperations(operations);
    for (const entry of manifest.operations) {
      const help = helpOf(manifest, [...commandPath(entry.name, entry.group), '--help']);
      expect(help, entry.name).toContain(`Calls ${entry.method} /v1`);
      const mentions = help.split('\n').filter((line) => /\bnull\b/.test(line) && !/\(set it to null\)/.test(line));
      expect(mentions, entry.name).toEqual([]);
    }
  });

  it('gives a new operation a CLI command with arguments and options', () => {
    const help = helpOf({ operations: [describeOperation(archiveCard)] }, ['cards', 'archive', '--help']);
    expect(help).toContain('Usage: tack cards archive [options] <board> <id>');
    expect(help).toMatch(/--reason <value>\s+required/);
    expect(help).toContain('--notify');
    expect(help).toMatch(/--labels <values>\s+any of: stale, dup/);
    expect(help).toContain('--no-due-on');
    expect(help).toContain('--count <n>');
    expect(help).toContain('--dry-run <true|false>');
    expect(help).toContain('Calls POST /v1/boards/{board}/cards/{id}/archive (needs the write scope).');
  });

  it('gives a new operation an MCP tool with its schemas and annotations', () => {
    const tool = toolFor(describeOperation(archiveCard));
    expect(tool.name).toBe('archiveCard');
    expect(tool.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(Object.keys(tool.inputSchema.properties ?? {})).toEqual(['id', 'board', 'dry_run', 'reason', 'notify', 'labels', 'due_on', 'count', 'idempotency_key']);
    expect(tool.inputSchema.additionalProperties).toBe(false);
    expect(tool.outputSchema?.properties).toHaveProperty('archived');
  });

  it('sends each argument where /v1 expects it, from either transport', () => {
    const entry = describeOperation(archiveCard);
    const args = { id: 'ENG/1', board: 'eng', dry_run: 'true', reason: 'old', labels: ['dup'], due_on: null };
    expect(requestFor(entry, args)).toEqual({
      method: 'POST',
      path: '/boards/eng/cards/ENG%2F1/archive',
      query: { dry_run: 'true' },
      body: { reason: 'old', labels: ['dup'], due_on: null },
    });
    expect(parseOperationInput(archiveCard, args)).toEqual({ id: 'ENG/1', board: 'eng', dry_run: 'true', reason: 'old', labels: ['dup'], due_on: null });
    expect(() => parseOperationInput(archiveCard, { id: 'x', board: 'b' })).toThrowError(
      expect.objectContaining({ code: 'validation_failed', fields: [expect.objectContaining({ field: 'reason' })] }),
    );
  });

  it('gives a path parameter another input name where a body field has its name (pathInput)', () => {
    const renameLabel = defineOperation({
      name: 'renameLabel',
      summary: 'Rename a label',
      group: 'cards',
      method: 'PATCH',
      path: '/labels/{name}',
      scope: 'write',
      params: z.object({ name: z.string().min(1) }),
      pathInput: { name: 'label' },
      body: z.object({ name: z.string().min(1).optional(), color: z.string().optional() }),
      output: z.object({ name: z.string() }),
      run: async (_ctx, input) => ({ name: input.name ?? input.label }),
    });
    expect(Object.keys(renameLabel.input.shape)).toEqual(['label', 'name', 'color']);
    const entry = describeOperation(renameLabel);
    expect(entry.path).toBe('/labels/{name}');
    expect(entry.fields.map((f) => [f.name, f.in, f.param])).toEqual([
      ['label', 'path', 'name'],
      ['name', 'body', undefined],
      ['color', 'body', undefined],
    ]);
    const args = { label: 'bug fix', name: 'bugfix' };
    expect(requestFor(entry, args)).toEqual({ method: 'PATCH', path: '/labels/bug%20fix', query: {}, body: { name: 'bugfix' } });
    expect(parseOperationInput(renameLabel, args)).toEqual({ label: 'bug fix', name: 'bugfix' });
    expect(() => parseOperationInput(renameLabel, { label: '', name: 'x' })).toThrowError(
      expect.objectContaining({ fields: [expect.objectContaining({ field: 'label' })] }),
    );
    expect(helpOf({ operations: [entry] }, ['cards', 'rename-label', '--help'])).toContain('Usage: tack cards rename-label [options] <label>');
  });

  it('has examples for every command of the table, and each one parses as that command takes it', () => {
    const manifest = describeOperations(operations);
    const paths = operations.flatMap((op) => [commandPath(op.name, op.group), ...(MORE_COMMANDS[op.name] ?? []).map((m) => m.path)]).map((p) => p.join(' '));
    expect(paths.filter((p) => !EXAMPLES[p])).toEqual([]);
    expect(Object.keys(EXAMPLES).filter((p) => !paths.includes(p))).toEqual([]);
    for (const [path, examples] of Object.entries(EXAMPLES)) {
      for (const example of examples) {
        const words = shellWords(example);
        expect(words.slice(0, path.split(' ').length + 1), example).toEqual(['tack', ...path.split(' ')]);
        // A program of its own for each example: commander keeps the values it parsed.
        const program = new Command('tack').exitOverride();
        addClientCommands(program, manifest);
        const cmd = path.split(' ').reduce((c, name) => c.commands.find((sub) => sub.name() === name)!, program);
        cmd.exitOverride();
        const { operands, unknown } = cmd.parseOptions(words.slice(path.split(' ').length + 1));
        expect(unknown, example).toEqual([]);
        const args = cmd.registeredArguments;
        expect(operands.length, example).toBeGreaterThanOrEqual(args.filter((a) => a.required).length);
        expect(operands.length, example).toBeLessThanOrEqual(args.length);
        operands.forEach((value, i) => {
          const arg = args[i]!;
          if (arg.argChoices) expect(arg.argChoices, example).toContain(value);
          else (arg as unknown as { parseArg?: (v: string, p: unknown) => unknown }).parseArg?.(value, undefined);
        });
        for (const option of cmd.options.filter((o) => o.mandatory)) expect(cmd.getOptionValue(option.attributeName()), `${example}: ${option.long}`).toBeDefined();
      }
    }
  });
});

/** The words a shell makes of a command line, up to a redirection: quotes kept together. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) {
    if (m[3] === '<' || m[3] === '|') break;
    words.push(m[1] ?? m[2] ?? m[3]!);
  }
  return words;
}
