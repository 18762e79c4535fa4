import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
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
import type { DateFieldProps } from './date-field';

const parse = (value: string | null): CalendarDate | null => {
  try {
    return value ? parseDate(value) : null;
  } catch {
    return null;
  }
};

/**
 * React Aria's DatePicker, loaded when a date field is first opened. A date typed segment by
 * segment is a draft (typing 2027 passes through 0002, 0020 and 0202): it is handed on once,
 * when complete, on leaving the field, on Enter, or when picked in the calendar. Escape puts
 * back the date there was.
 */
export default function DatePickerField({ label, value, onChange, hideLabel, autoFocus, onClose }: DateFieldProps & { autoFocus?: boolean; onClose?: () => void }) {
  const [draft, setDraft] = useState<CalendarDate | null>(() => parse(value));
  const draftRef = useRef(draft);
  const open = useRef(false);
  useEffect(() => {
    const next = parse(value);
    draftRef.current = next;
    setDraft(next);
  }, [value]);
  const change = (d: CalendarDate | null) => {
    draftRef.current = d;
    setDraft(d);
  };
  const commit = () => {
    const d = draftRef.current;
    const next = d ? d.toString() : null;
    // Only a whole date of four-digit year (a year being typed is not one yet).
    if (d && d.year < 1000) {
      const back = parse(value);
      draftRef.current = back;
      setDraft(back);
      return;
    }
    if (next !== value) onChange(next);
  };
  const onKeyDownCapture = (e: KeyboardEvent) => {
    if (e.key === 'Enter') commit();
    if (e.key === 'Escape' && !open.current) {
      e.stopPropagation();
      const back = parse(value);
      draftRef.current = back;
      setDraft(back);
    }
  };
  return (
    <div
      onKeyDownCapture={onKeyDownCapture}
      onBlur={(e) => {
        // Leaving the field (not into its own calendar): the draft is the answer.
        if (!open.current && !e.currentTarget.contains(e.relatedTarget as Node | null)) {
          commit();
          onClose?.();
        }
      }}
    >
      <DatePicker
        className="field"
        value={draft}
        onChange={change}
        granularity="day"
        autoFocus={autoFocus}
        onOpenChange={(isOpen) => {
          open.current = isOpen;
          if (!isOpen) commit(); // a day picked in the calendar, or the calendar closed
        }}
      >
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
    </div>
  );
}
