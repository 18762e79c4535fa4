import type { CommandContext } from './command-context.js';
import type { TodoView } from './views/todos.js';

/** The caller's open todos due this week (their own time zone), as `/todo` shows them. */
export interface OpenTodos {
  todos: TodoView[];
  /** There were more than one page holds. */
  truncated: boolean;
}

/**
 * One page of `listTodos` (`due=week`, `done=false`) at the largest size: more than a message
 * shows, so the view can say how many it left out.
 */
export async function openTodosThisWeek(call: CommandContext['call']): Promise<OpenTodos> {
  const page = await call('listTodos', { due: 'week', done: false, limit: 100 });
  return { todos: page.data, truncated: page.next_cursor !== undefined };
}
