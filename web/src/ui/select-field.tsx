import { useId, useRef, useState, type ComponentType } from 'react';
import { loadChunk } from '../chunks';

export type { Option, SelectFieldProps } from './select-props';
import type { SelectFieldProps } from './select-props';

type Control = ComponentType<SelectFieldProps & { openNow: boolean; focusNow: boolean }>;

const load = () => loadChunk(() => import('./select-control'));
/** The control's code once loaded: selects shown after that render it at once. */
let loaded: Control | undefined;
const preload = () =>
  load().then((m) => {
    loaded = m.default;
    return m.default;
  });

/**
 * A select (React Aria's, select-control.tsx) whose code is not on the page's first load:
 * until it is wanted, the same markup as React Aria renders closed (label, button showing
 * the value, ▾). A pointer on it loads the code; pressing it (pointer down, as React Aria
 * opens) swaps in the real select, open; focusing it from the keyboard swaps it in focused.
 */
export function SelectField(props: SelectFieldProps) {
  const [control, setControl] = useState<{ C: Control; open: boolean; focus: boolean } | undefined>(() => (loaded ? { C: loaded, open: false, focus: false } : undefined));
  const pointer = useRef(false);
  const labelId = useId();
  const valueId = useId();
  const swap = (open: boolean) =>
    void preload().then(
      // A press after a focus opens it; nothing closes it again.
      (C) => setControl((now) => (now && (now.open || !open) ? now : { C, open, focus: true })),
      () => undefined,
    );
  if (control) {
    const { C, open, focus } = control;
    return <C {...props} openNow={open} focusNow={focus} />;
  }
  const { label, value, options, hideLabel, isDisabled, testId } = props;
  const selected = options.find((o) => o.id === value);
  return (
    <div className="field" data-rac="" data-disabled={isDisabled || undefined} data-testid={testId}>
      <span className={hideLabel ? 'visually-hidden' : 'field-label'} id={labelId}>
        {label}
      </span>
      <button
        type="button"
        className="button select-button"
        data-rac=""
        disabled={isDisabled}
        data-disabled={isDisabled || undefined}
        aria-labelledby={`${valueId} ${labelId}`}
        aria-haspopup="listbox"
        aria-expanded="false"
        onPointerEnter={() => void preload().catch(() => undefined)}
        onPointerDown={(e) => {
          if (e.button !== 0) return;
          pointer.current = true;
          swap(true);
        }}
        onFocus={() => {
          if (!pointer.current) swap(false);
        }}
        onKeyDown={(e) => {
          if (['Enter', ' ', 'ArrowDown', 'ArrowUp'].includes(e.key)) {
            e.preventDefault();
            swap(true);
          }
        }}
      >
        <span id={valueId} className="react-aria-SelectValue" data-rac="" data-placeholder={selected ? undefined : true}>
          {selected?.label ?? 'Select an item'}
        </span>
        <span aria-hidden="true">▾</span>
      </button>
    </div>
  );
}
