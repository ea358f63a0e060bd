import { CI_SCALE, LONG_SCALE, type Scale } from './hostile-values.ts';

/** Run count, seed and value sizes: fixed and small in `npm test`, set by env for a long run (`npm run fuzz`). */
export interface FuzzConfig {
  runs: number;
  seed: number;
  scale: Scale;
  shrink: boolean;
}

export const CI_RUNS = 1_000;
export const CI_SEED = 20_261_126;

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`${name} must be a non-negative integer, got ${raw}`);
  return value;
}

export function fuzzConfig(): FuzzConfig {
  const runs = positiveInt('FUZZ_RUNS', CI_RUNS);
  const scale = process.env['FUZZ_SCALE'] ?? (runs > CI_RUNS ? 'long' : 'ci');
  if (scale !== 'ci' && scale !== 'long') throw new Error(`FUZZ_SCALE must be ci or long, got ${scale}`);
  return {
    runs,
    seed: positiveInt('FUZZ_SEED', CI_SEED),
    scale: scale === 'long' ? LONG_SCALE : CI_SCALE,
    shrink: process.env['FUZZ_SHRINK'] === '1',
  };
}
