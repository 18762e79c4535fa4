import { Button, Label, ListBox, ListBoxItem, Popover, Select, SelectValue, type Key } from 'react-aria-components';

import type { SelectFieldProps } from './select-props';

interface Props extends SelectFieldProps {
  /** Swapped in for a button pressed before this code loaded: opens at once, focused. */
  openNow: boolean;
  /** Swapped in for a focused button: takes the focus. */
  focusNow: boolean;
}

/**
 * A select from React Aria: keyboard, typeahead and screen readers as the platform's own.
 * Loaded when first wanted (select-field.tsx), not with the page.
 */
export default function SelectControl({ label, value, options, onChange, hideLabel, isDisabled, testId, openNow, focusNow }: Props) {
  return (
    <Select
      className="field"
      defaultOpen={openNow}
      autoFocus={openNow || focusNow}
      value={value}
      onChange={(k: Key | null) => k !== null && onChange(String(k))}
      disabledKeys={options.filter((o) => o.refused).map((o) => o.id)}
      isDisabled={isDisabled}
      data-testid={testId}
    >
      <Label className={hideLabel ? 'visually-hidden' : 'field-label'}>{label}</Label>
      <Button className="button select-button">
        <SelectValue />
        <span aria-hidden="true">▾</span>
      </Button>
      <Popover className="popover">
        <ListBox items={options}>
          {(o) => (
            <ListBoxItem id={o.id} className="listbox-item" textValue={o.label}>
              {o.label}
              {o.refused && <span className="muted small"> · {o.refused}</span>}
            </ListBoxItem>
          )}
        </ListBox>
      </Popover>
    </Select>
  );
}
