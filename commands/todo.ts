import { dueDate } from '../src/domain/todo-due.js';
import { PRIORITIES, type Priority } from '../src/vocabulary.js';
import { UsageError, type CommandForm, type CommandHandler } from '../src/slack/command-context.js';
import { openTodosThisWeek } from '../src/slack/todo-list.js';
import { todoModalView } from '../src/slack/views/todo-modal.js';
import { todoCreatedView, todoDoneView, todoListView } from '../src/slack/views/todos.js';

export const TODO_USAGE = [
  '*Usage*',
  '`/todo`: your open todos due this week',
  '`/todo add <title> [due:<YYYY-MM-DD|today|tomorrow>] [!urgent|!high|!low]`: add a todo (`/todo add` alone opens a form)',
  '`/todo done <id>`: complete a todo',
].join('\n');

/** `YYYY-MM-DD`, `today` or `tomorrow`: createTodo reads the words in the member's time zone, as on every face. */
export type Due = string;

export type TodoCommand =
  | { kind: 'list' }
  | { kind: 'add'; title: string; due?: Due; priority?: Priority }
  /** `/todo add` with nothing after it: the todo modal. */
  | { kind: 'form' }
  | { kind: 'done'; id: string };

const PRIORITY = new RegExp(`^!(${PRIORITIES.join('|')})$`, 'i');
const DUE = /^due:(.*)$/i;

function parseDue(value: string): Due {
  const v = value.toLowerCase();
  if (dueDate.safeParse(v).success) return v;
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
    if (rest.length === 0) return { kind: 'form' };
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

/** `/todo add` alone: the todo form, opened at once (see CommandForm). */
export const todoForm: CommandForm = (text, responseUrl) => {
  try {
    return parseTodoCommand(text).kind === 'form' ? todoModalView({ response_url: responseUrl }) : undefined;
  } catch {
    // Not a form; the handler answers with the usage.
    return undefined;
  }
};

export const todoCommand: CommandHandler = async (text, ctx) => {
  const cmd = parseTodoCommand(text);
  switch (cmd.kind) {
    case 'list': {
      const open = await openTodosThisWeek(ctx.call);
      return todoListView(open.todos, { truncated: open.truncated });
    }
    case 'add': {
      const todo = await ctx.call('createTodo', { title: cmd.title, priority: cmd.priority, due_on: cmd.due });
      return todoCreatedView(todo);
    }
    case 'form':
      // Opened before the command was queued (`todoForm`); nothing is left to answer.
      return null;
    case 'done': {
      const todo = await ctx.call('completeTodo', { id: cmd.id });
      return todoDoneView(todo);
    }
  }
};
