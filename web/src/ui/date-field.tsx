import { lazy, Suspense, useState } from 'react';
import { loadChunk } from '../chunks';
import { formatDate } from '../lib/dates';

export interface DateFieldProps {
  label: string;
  /** `YYYY-MM-DD` or null. */
  value: string | null;
  /** A complete date chosen (or null), once: not each keystroke of one being typed. */
  onChange: (date: string | null) => void;
  hideLabel?: boolean;
}

const DatePickerField = lazy(() => loadChunk(() => import('./date-picker')));

/**
 * A date typed by segments or picked from a calendar. The picker's code (React Aria's
 * DatePicker and Calendar) is not on the page's first load: the field shows its date as a
 * button, and the picker loads when that is pressed (or hovered, to be ready).
 */
export function DateField(props: DateFieldProps) {
  const [active, setActive] = useState(false);
  const { label, value, hideLabel } = props;
  const preload = () => void loadChunk(() => import('./date-picker')).catch(() => {});
  const placeholder = (
    <div className="field">
      <span className={hideLabel ? 'visually-hidden' : 'field-label'} aria-hidden="true">
        {label}
      </span>
      <button type="button" className="date-field date-field-closed" aria-label={`${label}: ${value ? formatDate(value) : 'none'}. Change`} onClick={() => setActive(true)} onPointerEnter={preload} onFocus={preload}>
        <span className={value ? undefined : 'muted'}>{value ? formatDate(value) : 'No date'}</span>
        <span aria-hidden="true" className="muted">
          ▾
        </span>
      </button>
    </div>
  );
  if (!active) return placeholder;
  return (
    <Suspense fallback={placeholder}>
      <DatePickerField {...props} autoFocus />
    </Suspense>
  );
}
