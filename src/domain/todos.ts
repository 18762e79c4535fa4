import { z } from 'zod';
import type { Selectable } from 'kysely';
import type { TodosTable } from '../db/schema.js';
import { findCard } from './card-refs.js';
import type { Ctx } from './context.js';
import { insertCriteria } from './criteria.js';
import { uniqueViolation } from '../db/errors.js';
import { QueryTemplate } from '../db/query-template.js';
import { AppError, notFound } from './errors.js';
import { id, key, label, pageQuery, queryBoolean, webUrl } from './fields.js';
import { newId } from './ids.js';
import { before, fetchLimit, pageLimit, readCursor, toPage, type Page } from './pagination.js';
import { toIso } from './time.js';
import { callerCalendar, DUE_FILTERS, DUE_STATES, dueCalendar, dueDate, dueRange, dueState, type DueCalendar } from './todo-due.js';
import { callerZone } from './time-zone.js';
import { PRIORITIES, type Priority } from '../vocabulary.js';

export const TODO_SCOPES = ['org', 'personal'] as const;

export const todoSchema = z.object({
  id: z.string(),
  title: z.string(),
  priority: z.enum(PRIORITIES),
  due_on: z.string().nullable(),
  org_id: z.string().optional().describe('Absent for personal todos'),
  card_id: z.string().optional().describe('Present when the todo mirrors a card criterion'),
  criterion_id: z.string().optional().describe('The mirrored criterion, with card_id'),
  done: z.boolean(),
  done_at: z.string().nullable(),
  source_url: z.string().optional().describe('The Slack message (permalink) or page the todo was made from'),
  created_at: z.string(),
  due_state: z
    .enum(DUE_STATES)
    .describe(
      'Where due_on falls in your time zone, as the due filters count: overdue (not done, due before today), today, week (the 6 days after today), later, or none (no date, or done and due before today)',
    ),
});
export type Todo = z.infer<typeof todoSchema>;

export const createTodoInput = z.object({
  title: label(300),
  priority: z.enum(PRIORITIES).default('medium'),
  due_on: dueDate.optional(),
  org_id: id('org').optional().describe('Your organization, for an organization todo; omit for a personal one'),
  card_id: key('card')
    .optional()
    .describe('Mirror a criterion of this card (id or ref): a new one titled like the todo, or criterion_id'),
  criterion_id: id('crit').optional().describe('An existing criterion to mirror; it takes the todo title'),
  source_url: webUrl.optional().describe('Where the todo came from: a Slack message permalink or any http(s) link'),
});

export const listTodosInput = z.object({
  ...pageQuery,
  due: z.enum(DUE_FILTERS).optional().describe("overdue (not done, due before today), today, week (today and the 6 days after), in your time zone"),
  done: queryBoolean.optional(),
  scope: z.enum(TODO_SCOPES).optional().describe('org or personal; both when absent'),
});

export const todoIdInput = z.object({ id: id('todo') });

type TodoRow = Pick<
  Selectable<TodosTable>,
  'id' | 'title' | 'priority' | 'due_on' | 'org_id' | 'card_id' | 'criterion_id' | 'done' | 'done_at' | 'source_url' | 'created_at'
>;

export const todoColumns = ['id', 'title', 'priority', 'due_on', 'org_id', 'card_id', 'criterion_id', 'done', 'done_at', 'source_url', 'created_at'] as const;

/** A todo as every read answers it; `cal` is the caller's calendar (`callerCalendar`), for `due_state`. */
export function presentTodo(row: TodoRow, cal: DueCalendar): Todo {
  const todo: Omit<Todo, 'due_state'> = {
    id: row.id,
    title: row.title,
    priority: row.priority,
    due_on: row.due_on,
    done: row.done,
    done_at: toIso(row.done_at),
    created_at: toIso(row.created_at),
  };
  if (row.org_id !== null) todo.org_id = row.org_id;
  if (row.card_id !== null) todo.card_id = row.card_id;
  if (row.criterion_id !== null) todo.criterion_id = row.criterion_id;
  if (row.source_url !== null) todo.source_url = row.source_url;
  return { ...todo, due_state: dueState(row.due_on, row.done, cal) };
}

/**
 * The criterion a new todo mirrors, made or found on the card; with whether it is ticked.
 * A found one takes the todo's title: a todo and the criterion it mirrors always carry one
 * title (contract §7), as `updateTodo` and `updateCriterion` keep it afterwards.
 */
async function linkCriterion(
  ctx: Ctx,
  input: z.infer<typeof createTodoInput>,
): Promise<{ cardId: string; criterionId: string; done: boolean } | undefined> {
  const orgId = ctx.principal.orgId;
  if (input.criterion_id !== undefined) {
    const cardId = input.card_id === undefined ? undefined : (await findCard(ctx.db, orgId, input.card_id)).id;
    let q = ctx.db.selectFrom('criteria').select(['id', 'card_id', 'done', 'title']).where('org_id', '=', orgId).where('id', '=', input.criterion_id);
    if (cardId !== undefined) q = q.where('card_id', '=', cardId);
    const row = await q.forUpdate().executeTakeFirst();
    if (!row) throw notFound('criterion', input.criterion_id);
    if (row.title !== input.title) {
      await ctx.db.updateTable('criteria').set({ title: input.title, updated_at: ctx.clock().toISOString() }).where('org_id', '=', orgId).where('id', '=', row.id).execute();
    }
    return { cardId: row.card_id, criterionId: row.id, done: row.done };
  }
  if (input.card_id === undefined) return undefined;
  const card = await findCard(ctx.db, orgId, input.card_id, true);
  const [criterionId] = await insertCriteria(ctx.db, orgId, card.id, [input.title]);
  return { cardId: card.id, criterionId: criterionId!, done: false };
}

/** The new todo's row, as `todoColumns` reads it: built and compiled once (`QueryTemplate`), run with each todo's values. */
const insertTodo = new QueryTemplate(
  'createTodo',
  (
    db,
    _shape: 'todo',
    v: {
      id: string;
      member_id: string;
      org_id: string | null;
      title: string;
      priority: Priority;
      due_on: string | null;
      card_id: string | null;
      criterion_id: string | null;
      done: boolean;
      done_at: string | null;
      source_url: string | null;
    },
  ) => db.insertInto('todos').values(v).returning(todoColumns),
);

/**
 * A todo of the caller's own: personal without `org_id`, or in the caller's organization.
 * With `card_id` it mirrors a criterion of that card (so it belongs to the organization),
 * and starts done when that criterion is already ticked.
 */
export async function createTodo(ctx: Ctx, input: z.infer<typeof createTodoInput>): Promise<Todo> {
  if (input.org_id !== undefined && input.org_id !== ctx.principal.orgId) throw notFound('organization', input.org_id);
  const link = await linkCriterion(ctx, input);
  const now = ctx.clock().toISOString();
  try {
    const row = await insertTodo.executeTakeFirst(ctx.db, 'todo', {
      id: newId('todo'),
      member_id: ctx.principal.memberId,
      org_id: link || input.org_id !== undefined ? ctx.principal.orgId : null,
      title: input.title,
      priority: input.priority,
      due_on: input.due_on ?? null,
      card_id: link?.cardId ?? null,
      criterion_id: link?.criterionId ?? null,
      done: link?.done ?? false,
      done_at: link?.done ? now : null,
      source_url: input.source_url ?? null,
    });
    if (!row) throw new Error('insert into todos returned no row');
    return presentTodo(row, await callerCalendar(ctx));
  } catch (err) {
    if (uniqueViolation(err) !== undefined) {
      throw new AppError('criterion_already_linked', 409, 'Another todo already mirrors that criterion.');
    }
    throw err;
  }
}

/**
 * The caller's todo marked done or not, when it was not already, answering it and what the
 * change replaced (`old_…`: the same row joined as it stood when the statement began): built
 * and compiled once (`QueryTemplate`).
 *
 * ```sql
 * update todos as t set done = $1, done_at = $2, updated_at = $3 from todos as o
 * where t.member_id = $4 and t.id = $5 and t.done <> $1 and o.id = t.id
 * returning t.<todoColumns>, o.done as old_done, o.done_at as old_done_at
 * ```
 */
const todoDone = new QueryTemplate(
  'setTodoDone',
  (db, _shape: 'done', v: { member_id: string; id: string; done: boolean; done_at: string | null; updated_at: string }) =>
    db
      .updateTable('todos as t')
      .from('todos as o')
      .set({ done: v.done, done_at: v.done_at, updated_at: v.updated_at })
      .where('t.member_id', '=', v.member_id)
      .where('t.id', '=', v.id)
      .where('t.done', '<>', v.done)
      .whereRef('o.id', '=', 't.id')
      .returning([...todoColumns.map((c) => `t.${c}` as const), 'o.done as old_done', 'o.done_at as old_done_at']),
);

/**
 * Sets a todo done or not, and its mirrored criterion with it, in the write's transaction.
 * The update changes the row only when it is not in that state yet (a concurrent call's waits
 * for the row, then finds it changed): of many concurrent calls one changes it and the rest
 * change nothing, so a criterion is never ticked twice.
 */
export async function setTodoDone(ctx: Ctx, todoId: string, done: boolean): Promise<Todo> {
  const now = ctx.clock().toISOString();
  const updated = await todoDone.executeTakeFirst(ctx.db, 'done', { member_id: ctx.principal.memberId, id: todoId, done, done_at: done ? now : null, updated_at: now });
  if (!updated) {
    const row = await ctx.db.selectFrom('todos').select(todoColumns).where('member_id', '=', ctx.principal.memberId).where('id', '=', todoId).executeTakeFirst();
    if (!row) throw notFound('todo', todoId);
    return presentTodo(row, await callerCalendar(ctx));
  }
  // Its events' "before", from the update's own statement, before the criterion it mirrors changes.
  if (ctx.reportBefore) {
    const { old_done, old_done_at, ...row } = updated;
    await ctx.reportBefore(presentTodo({ ...row, done: old_done, done_at: old_done_at }, await callerCalendar(ctx)));
  }
  if (updated.criterion_id !== null) {
    await ctx.db
      .updateTable('criteria')
      .set({ done, updated_at: now })
      .where('org_id', '=', ctx.principal.orgId)
      .where('id', '=', updated.criterion_id)
      .execute();
  }
  return presentTodo(updated, await callerCalendar(ctx));
}

export const completeTodo = (ctx: Ctx, input: z.infer<typeof todoIdInput>) => setTodoDone(ctx, input.id, true);
export const reopenTodo = (ctx: Ctx, input: z.infer<typeof todoIdInput>) => setTodoDone(ctx, input.id, false);

/** The caller's own todos, newest first; due filters use the caller's time zone. */
export async function listTodos(ctx: Ctx, input: z.infer<typeof listTodosInput>): Promise<Page<Todo>> {
  const memberId = ctx.principal.memberId;
  const scope = ['todos', memberId, input.due ?? null, input.done ?? null, input.scope ?? null];
  const at = readCursor(input.cursor, scope);
  const limit = pageLimit(input);
  let q = ctx.db.selectFrom('todos').select(todoColumns).where('member_id', '=', memberId);
  if (input.scope === 'org') q = q.where('org_id', '=', ctx.principal.orgId);
  if (input.scope === 'personal') q = q.where('org_id', 'is', null);
  if (input.done !== undefined) q = q.where('done', '=', input.done);
  const zone = await callerZone(ctx);
  const now = ctx.clock();
  if (input.due !== undefined) {
    const range = dueRange(input.due, now, zone);
    if (range.before !== undefined) q = q.where('due_on', '<', range.before).where('done', '=', false);
    if (range.from !== undefined) q = q.where('due_on', '>=', range.from);
    if (range.to !== undefined) q = q.where('due_on', '<=', range.to);
  }
  if (at) q = q.where(before('created_at', 'id', at, 'timestamptz'));
  const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(fetchLimit(limit)).execute();
  const cal = dueCalendar(now, zone);
  return toPage(rows, limit, (r) => ({ key: r.created_at, id: r.id }), (r) => presentTodo(r, cal), scope);
}
