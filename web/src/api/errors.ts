/** A failed call, as the API's error envelope describes it (or as close as we can get). */
export interface FieldError {
  field: string;
  code: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    readonly userMessage: string,
    readonly requestId: string | undefined,
    readonly fields: FieldError[] = [],
  ) {
    super(userMessage);
    this.name = 'ApiError';
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

/** Reads the envelope `{code, http_status, user_message, request_id, errors?}` of a failed response. */
export function apiErrorFrom(body: unknown, response: Response): ApiError {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  if (isRecord(body) && typeof body.code === 'string' && typeof body.user_message === 'string') {
    const fields = Array.isArray(body.errors)
      ? body.errors.filter(isRecord).map((e) => ({ field: String(e.field ?? ''), code: String(e.code ?? ''), message: String(e.message ?? '') }))
      : [];
    const id = typeof body.request_id === 'string' ? body.request_id : requestId;
    return new ApiError(body.code, response.status, body.user_message, id, fields);
  }
  return new ApiError('unexpected_response', response.status, `tack answered ${response.status} ${response.statusText}.`, requestId);
}

export function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return new ApiError('network_error', 0, 'Could not reach tack. Check your connection and try again.', undefined);
}

/** The message a person reads: the API's own, then each field's. */
export function describeError(err: ApiError): string {
  if (err.fields.length === 0) return err.userMessage;
  return `${err.userMessage} ${err.fields.map((f) => `${f.field}: ${f.message}`).join('; ')}`;
}
