import { pageOf } from '../domain/fields.js';
import { completeTodo, createTodo, createTodoInput, listTodos, listTodosInput, reopenTodo, todoIdInput, todoSchema } from '../domain/todos.js';
import { defineOperation } from './operation.js';

export const todoOperations = [
  defineOperation({
    name: 'listTodos',
    summary: 'Your own todos, newest first; due filters use your time zone',
    group: 'todos',
    method: 'GET',
    path: '/todos',
    scope: 'read',
    query: listTodosInput,
    output: pageOf(todoSchema),
    run: (ctx, input) => listTodos(ctx, input),
  }),
  defineOperation({
    name: 'createTodo',
    summary: 'Create a todo of your own: personal, or in your organization; with card_id it mirrors a criterion',
    group: 'todos',
    method: 'POST',
    path: '/todos',
    scope: 'write',
    body: createTodoInput,
    output: todoSchema,
    status: 201,
    run: (ctx, input) => createTodo(ctx, input),
  }),
  defineOperation({
    name: 'completeTodo',
    summary: 'Mark a todo done (and tick its mirrored criterion); done already changes nothing',
    group: 'todos',
    method: 'POST',
    path: '/todos/{id}/done',
    scope: 'write',
    params: todoIdInput,
    output: todoSchema,
    idempotent: true,
    run: (ctx, input) => completeTodo(ctx, input),
  }),
  defineOperation({
    name: 'reopenTodo',
    summary: 'Mark a todo not done (and untick its mirrored criterion)',
    group: 'todos',
    method: 'POST',
    path: '/todos/{id}/reopen',
    scope: 'write',
    params: todoIdInput,
    output: todoSchema,
    idempotent: true,
    run: (ctx, input) => reopenTodo(ctx, input),
  }),
];
