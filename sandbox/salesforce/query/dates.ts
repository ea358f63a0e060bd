/**
 * SOQL date literals (`TODAY`, `LAST_N_DAYS:30`, ...) as half-open UTC ranges [start, end) in ms.
 * The org's time zone is UTC, so "today" is the UTC day.
 */
const DAY = 86_400_000;

function startOfDay(ms: number): number {
  return Math.floor(ms / DAY) * DAY;
}

function monthStart(y: number, m: number): number {
  return Date.UTC(y, m, 1);
}

export function dateLiteralRange(
  literal: string,
  n: number | undefined,
  now = Date.now(),
): [number, number] | null {
  const today = startOfDay(now);
  const d = new Date(today);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  const weekStart = today - d.getUTCDay() * DAY; // weeks start on Sunday (en_US locale)
  const k = n ?? 0;
  switch (literal.toUpperCase()) {
    case 'YESTERDAY':
      return [today - DAY, today];
    case 'TODAY':
      return [today, today + DAY];
    case 'TOMORROW':
      return [today + DAY, today + 2 * DAY];
    case 'LAST_WEEK':
      return [weekStart - 7 * DAY, weekStart];
    case 'THIS_WEEK':
      return [weekStart, weekStart + 7 * DAY];
    case 'NEXT_WEEK':
      return [weekStart + 7 * DAY, weekStart + 14 * DAY];
    case 'LAST_MONTH':
      return [monthStart(y, m - 1), monthStart(y, m)];
    case 'THIS_MONTH':
      return [monthStart(y, m), monthStart(y, m + 1)];
    case 'NEXT_MONTH':
      return [monthStart(y, m + 1), monthStart(y, m + 2)];
    case 'LAST_90_DAYS':
      return [today - 90 * DAY, today + DAY];
    case 'NEXT_90_DAYS':
      return [today + DAY, today + 91 * DAY];
    case 'LAST_YEAR':
      return [Date.UTC(y - 1, 0, 1), Date.UTC(y, 0, 1)];
    case 'THIS_YEAR':
      return [Date.UTC(y, 0, 1), Date.UTC(y + 1, 0, 1)];
    case 'NEXT_YEAR':
      return [Date.UTC(y + 1, 0, 1), Date.UTC(y + 2, 0, 1)];
    case 'LAST_N_DAYS':
      return [today - k * DAY, today + DAY];
    case 'NEXT_N_DAYS':
      return [today + DAY, today + (k + 1) * DAY];
    case 'N_DAYS_AGO':
      return [today - k * DAY, today - (k - 1) * DAY];
    case 'LAST_N_MONTHS':
      return [monthStart(y, m - k), monthStart(y, m)];
    case 'NEXT_N_MONTHS':
      return [monthStart(y, m + 1), monthStart(y, m + 1 + k)];
    case 'LAST_N_YEARS':
      return [Date.UTC(y - k, 0, 1), Date.UTC(y, 0, 1)];
    case 'NEXT_N_YEARS':
      return [Date.UTC(y + 1, 0, 1), Date.UTC(y + 1 + k, 0, 1)];
    default:
      return null;
  }
}

/** Milliseconds of a stored date (`2024-01-01`) or datetime (`2024-01-01T00:00:00.000+0000`). */
export function toMs(value: string): number {
  if (value.length === 10) return Date.parse(`${value}T00:00:00Z`);
  return Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
}
