#!/usr/bin/env node
// Runs the property-based fuzzer (test/security/fuzz.system.test.ts) longer than `npm test` does.
// Usage: npm run fuzz -- [--runs 20000] [--seed 123] [--scale ci|long] [--shrink]
// The same settings as env: FUZZ_RUNS, FUZZ_SEED, FUZZ_SCALE, FUZZ_SHRINK=1.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: process.env.FUZZ_RUNS ?? '20000' },
    seed: { type: 'string', default: process.env.FUZZ_SEED ?? String(Date.now() % 1_000_000_000) },
    scale: { type: 'string', default: process.env.FUZZ_SCALE ?? 'long' },
    shrink: { type: 'boolean', default: process.env.FUZZ_SHRINK === '1' },
  },
});
console.log(
  `fuzzing: ${values.runs} requests, seed ${values.seed}, ${values.scale} values (rerun with --seed ${values.seed})`,
);
const result = spawnSync(
  process.execPath,
  ['--test', '--test-reporter=spec', 'test/security/fuzz.system.test.ts'],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      FUZZ_RUNS: values.runs,
      FUZZ_SEED: values.seed,
      FUZZ_SCALE: values.scale,
      FUZZ_SHRINK: values.shrink ? '1' : '0',
    },
  },
);
process.exit(result.status ?? 1);
