import { useEffect, useRef, useState, type KeyboardEvent } from 'react';

interface Props {
  id: string;
  label: string;
  value: string;
  /** Saves a changed, non-empty value; a rejection keeps the draft in the field for another try. */
  onSave: (value: string) => Promise<unknown> | void;
  /** After Escape, a save, or leaving the field unchanged (an edit mode closes). */
  onClose?: () => void;
  multiline?: boolean;
  className?: string;
  maxLength?: number;
  autoFocus?: boolean;
  hideLabel?: boolean;
  placeholder?: string;
}

/**
 * A text saved in place: leaving the field or Enter saves it, Escape puts back what was saved
 * (and saves nothing). What was typed stays while a save fails (tack unreachable, a refusal).
 */
export function InlineText({ id, label, value, onSave, onClose, multiline, className, maxLength = 300, autoFocus, hideLabel = true, placeholder }: Props) {
  const [draft, setDraft] = useState(value);
  const focused = useRef(false);
  const failed = useRef(false);
  const cancelled = useRef(false);
  // The saved value changed (a save, another person, the event stream): show it, unless a
  // draft is being typed or kept after a failed save.
  useEffect(() => {
    if (!focused.current && !failed.current) setDraft(value);
  }, [value]);

  const save = async () => {
    const next = draft.replace(/\s+/g, ' ').trim();
    if (!next || next === value) {
      failed.current = false;
      setDraft(value);
      onClose?.();
      return;
    }
    try {
      failed.current = false;
      await onSave(next);
      onClose?.();
    } catch {
      failed.current = true; // the toast or banner says why; the draft stays
      setDraft(draft);
    }
  };

  const edit = (text: string) => {
    cancelled.current = false;
    setDraft(text);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement | HTMLTextAreaElement>) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      cancelled.current = true;
      failed.current = false;
      setDraft(value);
      onClose?.();
    } else if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      void save();
    }
  };
  const common = {
    id,
    className,
    value: draft,
    maxLength,
    autoFocus,
    placeholder,
    onKeyDown,
    onFocus: () => {
      focused.current = true;
      cancelled.current = false;
    },
    onBlur: () => {
      focused.current = false;
      if (cancelled.current) {
        cancelled.current = false;
        return;
      }
      void save();
    },
  };
  return (
    <>
      <label htmlFor={id} className={hideLabel ? 'visually-hidden' : 'field-label'}>
        {label}
      </label>
      {multiline ? (
        <textarea {...common} rows={1} onChange={(e) => edit(e.target.value.replace(/\n/g, ' '))} />
      ) : (
        <input {...common} onChange={(e) => edit(e.target.value)} />
      )}
    </>
  );
}
