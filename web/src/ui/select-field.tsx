import { Button, Label, ListBox, ListBoxItem, Popover, Select, SelectValue, type Key } from 'react-aria-components';

export interface Option {
  id: string;
  label: string;
  /** Why it cannot be chosen, shown beside it. */
  refused?: string | undefined;
}

interface Props {
  label: string;
  value: string | null;
  options: readonly Option[];
  onChange: (id: string) => void;
  hideLabel?: boolean;
  isDisabled?: boolean;
  testId?: string;
}

/** A select from React Aria: keyboard, typeahead and screen readers as the platform's own. */
export function SelectField({ label, value, options, onChange, hideLabel, isDisabled, testId }: Props) {
  return (
    <Select
      className="field"
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
