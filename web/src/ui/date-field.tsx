import { parseDate, type CalendarDate } from '@internationalized/date';
import {
  Button,
  Calendar,
  CalendarCell,
  CalendarGrid,
  DateInput,
  DatePicker,
  DateSegment,
  Dialog,
  Group,
  Heading,
  Label,
  Popover,
} from 'react-aria-components';

interface Props {
  label: string;
  /** `YYYY-MM-DD` or null. */
  value: string | null;
  onChange: (date: string | null) => void;
  hideLabel?: boolean;
}

/** A date typed by segments or picked from a calendar (React Aria's DatePicker). */
export function DateField({ label, value, onChange, hideLabel }: Props) {
  let parsed: CalendarDate | null = null;
  try {
    parsed = value ? parseDate(value) : null;
  } catch {
    parsed = null;
  }
  return (
    <DatePicker className="field" value={parsed} onChange={(d) => onChange(d ? d.toString() : null)} granularity="day">
      <Label className={hideLabel ? 'visually-hidden' : 'field-label'}>{label}</Label>
      <Group className="date-field">
        <DateInput className="row" style={{ gap: 0 }}>
          {(segment) => <DateSegment segment={segment} />}
        </DateInput>
        <Button className="icon-button" aria-label={`Pick ${label.toLowerCase()}`}>
          ▾
        </Button>
      </Group>
      <Popover className="popover">
        <Dialog className="calendar" aria-label={label}>
          <Calendar>
            <header>
              <Button slot="previous" className="icon-button" aria-label="Previous month">
                ‹
              </Button>
              <Heading />
              <Button slot="next" className="icon-button" aria-label="Next month">
                ›
              </Button>
            </header>
            <CalendarGrid>{(date) => <CalendarCell date={date} className="cell" />}</CalendarGrid>
          </Calendar>
        </Dialog>
      </Popover>
    </DatePicker>
  );
}
