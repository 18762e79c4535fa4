import type { Operation } from './operation.js';
import { platformOperations } from './platform.js';
import { snippetOperations } from './snippets.js';
import { boardOperations } from './boards.js';
import { cardOperations } from './cards.js';
import { todoOperations } from './todos.js';
import { milestoneOperations } from './milestones.js';
import { jobOperations } from './jobs.js';
import { sessionOperations } from './sessions.js';

/** The table of operations: every face (HTTP, MCP, CLI, OpenAPI) is generated from it. */
export const operations: readonly Operation[] = [
  ...platformOperations,
  ...snippetOperations,
  ...boardOperations,
  ...cardOperations,
  ...todoOperations,
  ...milestoneOperations,
  ...jobOperations,
  ...sessionOperations,
];

const byName = new Map(operations.map((op) => [op.name, op]));

export function operationNamed(name: string): Operation {
  const op = byName.get(name);
  if (!op) throw new Error(`unknown operation ${name}`);
  return op;
}
