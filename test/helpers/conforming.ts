import { assertConforms } from './openapi-conformance.js';

/** Operations and statuses answered through the test clients in this test file, each checked against the document. */
export const answered = new Map<string, Set<number>>();

/** Holds one HTTP answer to the OpenAPI document (a `/v1` operation's) and records its operation and status. */
export function recordConforming(answer: Parameters<typeof assertConforms>[0]): void {
  const { operationId } = assertConforms(answer);
  if (!operationId) return;
  if (!answered.has(operationId)) answered.set(operationId, new Set());
  answered.get(operationId)!.add(answer.status);
}
