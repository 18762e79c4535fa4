/** A field-level problem in a 422 response. */
export interface FieldError {
  field: string;
  code: string;
  message: string;
}

/**
 * The one error type the domain throws. Each face maps it once: HTTP envelope,
 * Slack ephemeral text, MCP `isError`, CLI stderr and exit code.
 */
export class AppError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    readonly userMessage: string,
    readonly fields?: FieldError[],
  ) {
    super(userMessage);
    this.name = 'AppError';
  }
}

export const notFound = (resource: string, what = resource) =>
  new AppError(`${resource}_not_found`, 404, `No ${what.replace(/_/g, ' ')} with that identifier.`);

export const validationFailed = (fields: FieldError[], message = 'Some fields are not valid.') =>
  new AppError('validation_failed', 422, message, fields);

/**
 * The one answer to a change that changes nothing (a PATCH with none of its fields): 422
 * naming the fields it takes. Every update asks it, so an empty body means the same everywhere.
 */
export function requireSomeField(input: Record<string, unknown>, fields: readonly string[]): void {
  if (fields.some((f) => input[f] !== undefined)) return;
  throw validationFailed([{ field: 'body', code: 'empty', message: `give at least one of ${fields.join(', ')}` }]);
}

export const forbidden = (code: string, message: string) => new AppError(code, 403, message);

export const conflict = (code: string, message: string) => new AppError(code, 409, message);
