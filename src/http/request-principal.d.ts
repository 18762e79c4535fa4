import type { Principal } from '../domain/context.js';
import type { AppError } from '../domain/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    authError: AppError | null;
  }
}
