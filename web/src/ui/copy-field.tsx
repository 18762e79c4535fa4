import { notify } from './toast-queue';

/** A secret or link to copy: read-only, selected on focus, with a Copy button. */
export function CopyField({ id, label, value }: { id: string; label: string; value: string }) {
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      notify('Copied');
    } catch {
      (document.getElementById(id) as HTMLInputElement | null)?.select();
      notify('Press Ctrl+C (⌘C) to copy the selected text');
    }
  };
  return (
    <div className="row">
      <label htmlFor={id} className="visually-hidden">
        {label}
      </label>
      <input id={id} className="grow mono" readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
      <button type="button" className="button" onClick={() => void copy()}>
        Copy
      </button>
    </div>
  );
}
