import type { ReactNode } from 'react';
import { CopyField } from './copy-field';

/** A secret the API returns once (a new key, a webhook's signing secret): copy it, then dismiss. */
export function ShownOnce({ title, note, id, label, value, testId, onDone }: { title: ReactNode; note: string; id: string; label: string; value: string; testId: string; onDone: () => void }) {
  return (
    <div className="panel new-key" role="status" data-testid={testId}>
      <h3>{title}</h3>
      <p className="warn-text">{note}</p>
      <CopyField id={id} label={label} value={value} />
      <button type="button" className="button small" style={{ marginTop: 8 }} onClick={onDone}>
        I have copied it
      </button>
    </div>
  );
}
