import { asApiError, describeError } from '../api/errors';

/** A failed read, in place of what it would have shown: never a blank page. */
export function ErrorPanel({ error, retry }: { error: unknown; retry?: () => void }) {
  const e = asApiError(error);
  return (
    <div role="alert" className="panel error-panel">
      <p>{describeError(e)}</p>
      {e.requestId && <p className="muted mono">Request {e.requestId}</p>}
      {retry && (
        <button type="button" className="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="muted loading" role="status">
      {label}
    </p>
  );
}
