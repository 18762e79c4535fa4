import type { components, operations } from './openapi';

type Json<Op extends keyof operations, Status extends number = 200> = operations[Op]['responses'] extends Record<Status, { content: { 'application/json': infer T } }> ? T : never;
type Item<Op extends keyof operations> = Json<Op> extends { data: (infer T)[] } ? T : never;

export type Me = Json<'getMe'>;
export type Member = Item<'listMembers'>;
export type Board = Item<'listBoards'>;
export type Card = Item<'listCards'>;
export type Criterion = Item<'listCriteria'>;
export type Comment = Item<'listComments'>;
export type CardEvent = Item<'getCardActivity'>;
export type Todo = Item<'listTodos'>;
export type Milestone = Item<'listMilestones'>;
export type Snippet = Item<'listSnippets'>;
export type SnippetVersion = Json<'getSnippetVersion'>;
export type Token = Item<'listTokens'>;
export type CreatedToken = Json<'createToken', 201>;
export type Webhook = Item<'listWebhooks'>;
export type CreatedWebhook = Json<'createWebhook', 201>;
export type WebhookDelivery = Item<'listWebhookDeliveries'>;
/** One event of the stream (contract §10): `data` is its subject as the subject's read operation answers it. */
export type TackEvent = components['schemas']['Event'];
export type WorkflowStatus = Card['workflow_status'];
export type Priority = Todo['priority'];
export type Role = Member['role'];
export type Scope = Token['scopes'][number];
// Unused now; kept so a schema added to components stays reachable by name.
export type Schemas = components['schemas'];

export const STATUSES: readonly WorkflowStatus[] = ['backlog', 'in_progress', 'in_review', 'done'];
export const STATUS_LABEL: Record<WorkflowStatus, string> = {
  backlog: 'Backlog',
  in_progress: 'In progress',
  in_review: 'In review',
  done: 'Done',
};
export const PRIORITIES: readonly Priority[] = ['urgent', 'high', 'medium', 'low'];
