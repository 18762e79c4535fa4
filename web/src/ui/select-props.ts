/** What a select takes: shared by the light field (select-field.tsx) and the control it loads on first use (select-control.tsx). */

export interface Option {
  id: string;
  label: string;
  /** Why it cannot be chosen, shown beside it. */
  refused?: string | undefined;
}

export interface SelectFieldProps {
  label: string;
  value: string | null;
  options: readonly Option[];
  onChange: (id: string) => void;
  hideLabel?: boolean | undefined;
  isDisabled?: boolean | undefined;
  testId?: string | undefined;
}
