import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../operations/execute.js';
import type { Operation } from '../operations/operation.js';
import { registerOpenApi } from './openapi.js';
import { requestPath } from './request-path.js';
import { registerOperationRoutes } from './routes.js';

/** Whether a request's URL is under /v1, as the router reads it (`requestPath`). */
export function isApiUrl(url: string): boolean {
  const path = requestPath(url);
  return path.startsWith('/v1/') || path === '/v1';
}

export interface ApiOptions {
  operations: readonly Operation[];
  runtime: Runtime;
}

/** `/v1`: a route per operation of the table, and the OpenAPI document made from the same table. */
export async function api(app: FastifyInstance, options: ApiOptions): Promise<void> {
  registerOpenApi(app, options.operations, () => options.runtime.appUrl!);
  registerOperationRoutes(app, options.operations, options.runtime);
}
