import { WEEKDAYS, type Schedule, type Weekday } from './settings.js';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: timezone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formatters.set(timezone, f);
  }
  return f;
}

/** The weekday and HH:MM wall-clock time at `nowMs` in the schedule's time zone (DST-aware via Intl). */
export function localTime(timezone: string, nowMs: number): { day: Weekday; time: string } {
  const parts = Object.fromEntries(formatterFor(timezone).formatToParts(new Date(nowMs)).map((p) => [p.type, p.value]));
  const day = String(parts.weekday).slice(0, 3).toLowerCase() as Weekday;
  return { day: WEEKDAYS.includes(day) ? day : 'mon', time: `${parts.hour}:${parts.minute}` };
}

/** No schedule means always open. Ranges are [start, end): 09:00–17:00 is open at 16:59, closed at 17:00. */
export function isOpen(schedule: Schedule | null, nowMs: number): boolean {
  if (!schedule) return true;
  const { day, time } = localTime(schedule.timezone, nowMs);
  return (schedule.weekly[day] ?? []).some((r) => time >= r.start && time < r.end);
}
