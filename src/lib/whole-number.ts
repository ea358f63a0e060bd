/** A whole number from 1 to `max` written as digits, `fallback` when absent; null when it is not one. */
export function wholeNumber(raw: string | undefined, fallback: number, max: number): number | null {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  return /^[0-9]+$/.test(raw) && n >= 1 && n <= max ? n : null;
}
