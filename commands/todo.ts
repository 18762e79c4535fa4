import { isoDate } from '../src/domain/fields.js';
import { PRIORITIES, type Priority } from '../src/domain/vocabulary.js';
import { localToday } from '../src/domain/todo-due.js';
import { UsageError, type CommandHandler } from '../src/slack/command-context.js';
import { openTodosThisWeek } from '../src/slack/todo-list.js';
import { todoCreatedView, todoDoneView, todoListView, type TodoView } from '../src/slack/views.js';

export const TODO_USAGE = [
  '*Usage*',
  '`/todo`: your open todos due this week',
  '`/todo add <title> [due:<YYYY-MM-DD|today|tomorrow>] [!urgent|!high|!low]`: add a todo',
  '`/todo done <id>`: complete a todo',
].join('\n');

export type Due = { kind: 'date'; date: string } | { kind: 'today' } | { kind: 'tomorrow' };

export type TodoCommand =
  | { kind: 'list' }
  | { kind: 'add'; title: string; due?: Due; priority?: Priority }
  | { kind: 'done'; id: string };

const PRIORITY = new RegExp(`^!(${PRIORITIES.join('|')})$`, 'i');
const DUE = /^due:(.*)$/i;

function parseDue(value: string): Due {
  const v = value.toLowerCase();
  if (v === 'today') return { kind: 'today' };
  if (v === 'tomorrow') return { kind: 'tomorrow' };
  if (isoDate.safeParse(value).success) return { kind: 'date', date: value };
  throw new UsageError(TODO_USAGE, `"due:${value}" is not a date: use due:YYYY-MM-DD, due:today or due:tomorrow.`);
}

/** `/todo`, `/todo add <title> [due:…] [!priority]`, `/todo done <id>`. Options may stand anywhere after `add`. */
export function parseTodoCommand(text: string): TodoCommand {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const [verb, ...rest] = words;
  const action = verb?.toLowerCase();
  if (action === undefined || action === 'list') {
    if (rest.length > 0) throw new UsageError(TODO_USAGE);
    return { kind: 'list' };
  }
  if (action === 'done') {
    if (rest.length !== 1) throw new UsageError(TODO_USAGE, 'Give one todo id, for example `/todo done todo_abc123`.');
    return { kind: 'done', id: rest[0]! };
  }
  if (action === 'add') {
    const title: string[] = [];
    let due: Due | undefined;
    let priority: Priority | undefined;
    for (const word of rest) {
      const p = PRIORITY.exec(word);
      const d = DUE.exec(word);
      if (p) {
        if (priority) throw new UsageError(TODO_USAGE, 'Give at most one priority.');
        priority = p[1]!.toLowerCase() as Priority;
      } else if (d) {
        if (due) throw new UsageError(TODO_USAGE, 'Give at most one due date.');
        due = parseDue(d[1]!);
      } else {
        title.push(word);
      }
    }
    if (title.length === 0) throw new UsageError(TODO_USAGE, 'A todo needs a title.');
    return { kind: 'add', title: title.join(' '), ...(due ? { due } : {}), ...(priority ? { priority } : {}) };
  }
  if (action === 'help') throw new UsageError(TODO_USAGE);
  throw new UsageError(TODO_USAGE, `Unknown action "${verb}".`);
}

/**
 * The calendar date of `due`, `YYYY-MM-DD`, in the member's own time zone (UTC when they set
 * none): the zone `/v1` reads `due=today|week` and reminders in, so "today" means one day.
 */
export function resolveDue(due: Due, now: Date, timeZone: string | null): string {
  if (due.kind === 'date') return due.date;
  return localToday(now, timeZone, due.kind === 'tomorrow' ? 1 : 0);
}

export const todoCommand: CommandHandler = async (text, ctx) => {
  const cmd = parseTodoCommand(text);
  switch (cmd.kind) {
    case 'list': {
      const open = await openTodosThisWeek(ctx.call);
      return todoListView(open.todos, { truncated: open.truncated });
    }
    case 'add': {
      const input: Record<string, unknown> = { title: cmd.title };
      if (cmd.priority) input.priority = cmd.priority;
      if (cmd.due) input.due_on = resolveDue(cmd.due, ctx.now, ctx.member.tz);
      const todo = await ctx.call<TodoView>('createTodo', input);
      return todoCreatedView(todo);
    }
    case 'done': {
      const todo = await ctx.call<TodoView>('completeTodo', { id: cmd.id });
      return todoDoneView(todo);
    }
  }
};
