import { useMe } from '../api/queries';
import { browserZone } from './dates';

/** The caller's time zone: their member setting, else the browser's. */
export function useTimeZone(): string {
  const me = useMe();
  return me.data?.member.tz ?? browserZone();
}
