import type { Operation, OutputOf } from './operation.js';
import { platformOperations } from './platform.js';
import { snippetOperations } from './snippets.js';
import { boardOperations } from './boards.js';
import { cardOperations } from './cards.js';
import { commentOperations } from './comments.js';
import { todoOperations } from './todos.js';
import { milestoneOperations } from './milestones.js';
import { jobOperations } from './jobs.js';
import { sessionOperations } from './sessions.js';
import { searchOperations } from './search.js';
import { eventOperations } from './events.js';
import { webhookOperations } from './webhooks.js';
import { githubOperations } from './github.js';

const table = [
  ...platformOperations,
  ...snippetOperations,
  ...boardOperations,
  ...cardOperations,
  ...commentOperations,
  ...todoOperations,
  ...milestoneOperations,
  ...jobOperations,
  ...sessionOperations,
  ...searchOperations,
  ...eventOperations,
  ...webhookOperations,
  ...githubOperations,
];

/** The table of operations: every face (HTTP, MCP, CLI, OpenAPI) is generated from it. */
export const operations: readonly Operation[] = table;

/** The name of an operation in the table. */
export type OperationName = (typeof table)[number]['name'];

/** The table's operation called `N`, with its output schema's type. */
export type OperationNamed<N extends OperationName> = Extract<(typeof table)[number], { name: N }>;

/** What the operation called `N` answers with (`z.output` of its output schema). */
export type OperationOutput<N extends OperationName> = OutputOf<OperationNamed<N>>;

const byName = new Map<string, Operation>(operations.map((op) => [op.name, op]));

export function operationNamed<N extends OperationName>(name: N): OperationNamed<N>;
export function operationNamed(name: string): Operation;
export function operationNamed(name: string): Operation {
  const op = byName.get(name);
  if (!op) throw new Error(`unknown operation ${name}`);
  return op;
}
