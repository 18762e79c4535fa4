import { asApiError, describeError } from '../api/errors';

/** A form's failed submit, next to the form: the API's message, each field's, and the request id. */
export function FieldErrors({ error }: { error: unknown }) {
  if (!error) return null;
  const e = asApiError(error);
  return (
    <div role="alert" className="field-error" style={{ marginTop: 8 }}>
      {describeError(e)}
      {e.requestId && <span className="muted mono"> · Request {e.requestId}</span>}
    </div>
  );
}
