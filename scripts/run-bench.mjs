#!/usr/bin/env node
// Runs the benchmarks in bench/ (each a standalone TypeScript script that prints its own report).
// Usage: npm run bench            -> every bench/*.bench.ts in turn
//        npm run bench -- get     -> only those whose file name contains "get"
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const filters = process.argv.slice(2);
const files = readdirSync('bench')
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error(`no benchmark matched ${filters.join(' ')}`);
  process.exit(1);
}
let failed = 0;
for (const f of files) {
  console.log(`\n=== bench/${f} ===`);
  const r = spawnSync(process.execPath, ['--expose-gc', `bench/${f}`], {
    stdio: 'inherit',
  });
  if (r.status !== 0) failed += 1;
}
process.exit(failed === 0 ? 0 : 1);
