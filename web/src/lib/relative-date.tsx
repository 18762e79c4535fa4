import { absoluteDay, relativeDay } from './relative-dates';

/**
 * A date as people say it ("Tomorrow", "Mon", "in 12 days"), the full date on hover and for
 * machines (`<time datetime>`); `today` is getMe's.
 */
export function RelativeDate({ date, today, prefix = '' }: { date: string; today: string; prefix?: string }) {
  return (
    <time dateTime={date} title={`${prefix}${absoluteDay(date)}`}>
      {relativeDay(date, today)}
    </time>
  );
}
