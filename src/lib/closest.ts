// "Did you mean" hints. Edit distance is quadratic, so long names get none, candidates ruled out by
// length alone are skipped, and a request computes at most MAX_HINTS.

/** Real CRM field names are at most ~80 characters (Salesforce: 40 + namespace + `__c`). */
export const MAX_HINTED_NAME = 80;
/** Hints per request; the rest of the unknown names are still listed, without a hint. */
export const MAX_HINTS = 5;

/** Levenshtein distance, case-insensitive (CRM field names are). */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let prev = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const cur = [i];
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    prev = cur;
  }
  return prev[t.length] ?? 0;
}

/** The candidate closest to `name`, for "did you mean" hints; null when nothing is reasonably close. */
export function closestName(name: string, candidates: Iterable<string>): string | null {
  if (name.length === 0 || name.length > MAX_HINTED_NAME) return null;
  const threshold = Math.max(2, Math.ceil(name.length / 2));
  let best: string | null = null;
  let bestDistance = threshold + 1;
  for (const candidate of candidates) {
    // The distance is at least the length difference: no need to compute it past the best so far.
    if (candidate.length > MAX_HINTED_NAME || Math.abs(candidate.length - name.length) >= bestDistance)
      continue;
    const d = editDistance(name, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** closestName for one request: hints for the first MAX_HINTS names asked about, null after that. */
export function hinter(candidates: readonly string[]): (name: string) => string | null {
  let left = MAX_HINTS;
  return (name) => {
    if (left <= 0) return null;
    left--;
    return closestName(name, candidates);
  };
}
