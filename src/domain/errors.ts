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

/**
 * 404 `<resource>_not_found`, naming the identifier the caller gave (quoted as JSON, so a
 * stray space or control character shows). Without one (a public link, whose address is
 * its secret), the message says "that identifier".
 */
export const notFound = (resource: string, key?: string) =>
  new AppError(
    `${resource}_not_found`,
    404,
    key === undefined
      ? `No ${resource.replace(/_/g, ' ')} with that identifier.`
      : `No ${resource.replace(/_/g, ' ')} with the identifier ${JSON.stringify(key.slice(0, 100))}.`,
  );

/**
 * 422 `validation_failed` for field problems, each message a sentence naming its field. The
 * user_message can be acted on alone: the one problem's sentence, or the fields at fault.
 */
export function validationFailed(fields: FieldError[]): AppError {
  const message =
    fields.length === 1 ? fields[0]!.message : `${fields.length} fields are not valid: ${[...new Set(fields.map((f) => f.field))].join(', ')}.`;
  return new AppError('validation_failed', 422, message, fields);
}

export const forbidden = (code: string, message: string) => new AppError(code, 403, message);

export const conflict = (code: string, message: string) => new AppError(code, 409, message);

/** What `read` answers, or undefined where the thing is not there (its reader's 404). */
export async function unlessMissing<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof AppError && err.status === 404) return undefined;
    throw err;
  }
}
