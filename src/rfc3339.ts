// Times the API takes, read strictly as RFC 3339 (section 5.6): `2026-12-01T09:30:00Z`, `2026-12-01T10:30:00.5+01:00`.
// Date.parse alone is no check: it takes 2026-11-31 as December 1st and T24:00 as the next midnight.

const FORMAT = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
export const RFC3339_EXAMPLE = '2026-12-01T09:30:00Z';

const leap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const daysIn = (year: number, month: number) => [31, leap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
/** Date.UTC, but years 0 to 99 are those years (Date.UTC reads them as 1900 to 1999). */
function utc(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  const t = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, ms));
  t.setUTCFullYear(year);
  return t.getTime();
}

export type TimeReading = { ok: true; ms: number } | { ok: false; problem: string };

/** A full-date (YYYY-MM-DD) that is a day of the calendar, as a problem sentence or null. */
function dateProblem(year: number, month: number, day: number): string | null {
  if (month < 1 || month > 12) return `has no month ${month}`;
  if (day < 1 || day > daysIn(year, month)) return `names day ${day} of a month that has ${daysIn(year, month)} days`;
  return null;
}

/** Epoch milliseconds of an RFC 3339 date-time with its offset; the problem, as the end of a sentence, when it is not one. */
export function readRfc3339(text: string): TimeReading {
  const m = FORMAT.exec(text);
  if (!m) return { ok: false, problem: `must be an RFC 3339 time with seconds and a time zone, such as ${RFC3339_EXAMPLE}` };
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const bad = dateProblem(year, month, day)
    ?? (hour > 23 ? `has hour ${hour} (00 to 23)` : null)
    ?? (minute > 59 ? `has minute ${minute} (00 to 59)` : null)
    // RFC 3339 allows a leap second (60); nothing here keeps one, so it is refused rather than moved.
    ?? (second > 59 ? `has second ${second} (00 to 59)` : null)
    ?? (m[8] === undefined && (Number(m[10]) > 23 || Number(m[11]) > 59) ? `has an offset out of range (${m[9]}${m[10]}:${m[11]})` : null);
  if (bad) return { ok: false, problem: bad };
  const fraction = m[7] ? Math.floor(Number(m[7]) * 1000) : 0;
  const offsetMinutes = m[8] !== undefined ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]));
  return { ok: true, ms: utc(year, month, day, hour, minute, second, fraction) - offsetMinutes * 60_000 };
}

/** A calendar day written YYYY-MM-DD (the dashboard's date filters): its midnight UTC, or null when there is no such day. */
export function readFullDate(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return null;
  const [year, month, day] = m.slice(1).map(Number) as [number, number, number];
  return dateProblem(year, month, day) ? null : utc(year, month, day);
}
