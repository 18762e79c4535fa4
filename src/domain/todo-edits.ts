import { z } from 'zod';
import type { Ctx } from './context.js';
import { notFound } from './errors.js';
import { label, webUrl } from './fields.js';
import { callerCalendar, dueDate } from './todo-due.js';
import { presentTodo, todoColumns, todoIdInput, type Todo } from './todos.js';
import { PRIORITIES } from '../vocabulary.js';

export const updateTodoInput = todoIdInput.extend({
  title: label(300).optional().describe('A todo mirroring a criterion renames the criterion too'),
  priority: z.enum(PRIORITIES).optional(),
  due_on: dueDate.nullable().optional().describe('A date as YYYY-MM-DD, or today or tomorrow in your time zone; null clears it; a new date gets its own reminder'),
  source_url: webUrl.nullable().optional().describe('Where the todo came from; null clears it'),
});

/**
 * Corrects a todo of the caller's own: title, priority, due date, source link (null clears them). A todo
 * that mirrors a criterion carries the criterion's title, so a new title renames the
 * criterion in the same transaction (todo locked first, then criterion, as everywhere).
 * A new due date needs nothing else: reminders are kept per todo and due date, so the
 * reminder sweep sends one for the new date.
 */
export async function updateTodo(ctx: Ctx, input: z.infer<typeof updateTodoInput>): Promise<Todo> {
  const { id: todoId, ...fields } = input;
  const row = await ctx.db
    .selectFrom('todos')
    .select(['id', 'criterion_id'])
    .where('member_id', '=', ctx.principal.memberId)
    .where('id', '=', todoId)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw notFound('todo', todoId);
  const now = ctx.clock().toISOString();
  const updated = await ctx.db
    .updateTable('todos')
    .set({ ...fields, updated_at: now })
    .where('member_id', '=', ctx.principal.memberId)
    .where('id', '=', row.id)
    .returning(todoColumns)
    .executeTakeFirstOrThrow();
  if (input.title !== undefined && row.criterion_id !== null) {
    await ctx.db
      .updateTable('criteria')
      .set({ title: input.title, updated_at: now })
      .where('org_id', '=', ctx.principal.orgId)
      .where('id', '=', row.criterion_id)
      .execute();
  }
  return presentTodo(updated, await callerCalendar(ctx));
}

/** Deletes a todo of the caller's own; a criterion it mirrored stays on its card, unlinked. */
export async function deleteTodo(ctx: Ctx, input: z.infer<typeof todoIdInput>): Promise<void> {
  const result = await ctx.db
    .deleteFrom('todos')
    .where('member_id', '=', ctx.principal.memberId)
    .where('id', '=', input.id)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw notFound('todo', input.id);
}
