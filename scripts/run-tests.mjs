#!/usr/bin/env node
// Runs every *.test.ts under test/ with node's own test runner, in a few worker processes
// (scripts/test-worker.mjs), each loading TypeScript once and running files one after the other,
// taking the next one from a shared queue (longest first) when it is free. Output is node's
// reporter (spec by default, TEST_REPORTER=tap for TAP), each file's block kept whole; the summary
// at the end adds up all workers.
//
// Usage: npm test [-- <path filter>...]     (a file runs when its path contains one of the filters)
// Env:   TEST_CONCURRENCY  worker processes (default: cores + 1, at least 2, at most one per file)
//        TEST_REPORTER     spec (default) | tap
//        TEST_DEADLINE_MIN a worker still running after this many minutes is stopped (default 20)
//        TEST_TIMES        print the slowest files at the end: 1 for the top 15, N for the top N
import { fork } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.test.ts') ? [p] : [];
  });
}

const filters = process.argv.slice(2);
const files = walk('test')
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

// How long each file took last time (written at the end of every run), else the committed list
// (scripts/test-weights.json, for a fresh clone), else its size: the longest files start first, each
// on whichever worker is free, so that no worker is left with a long file at the end.
const TIMES = join('node_modules', '.cache', 'crm-proxy', 'test-durations.json');
const WEIGHTS = join('scripts', 'test-weights.json');
const readJson = (path) => {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return {};
  }
};
const lastTimes = readJson(TIMES);
const weights = readJson(WEIGHTS);
const cost = (f) => lastTimes[f] ?? weights[f] ?? statSync(f).size / 2;

// One more worker than cores: much of a file's time is spent waiting (child processes starting,
// sockets, timeouts), and a third worker fills those gaps on a 2-core machine.
const defaultWorkers = Math.max(2, availableParallelism() + 1);
const workers = Math.max(
  1,
  Math.min(files.length, Number(process.env.TEST_CONCURRENCY ?? defaultWorkers) || defaultWorkers),
);
const queue = [...files].sort((a, b) => cost(b) - cost(a));

const reporter = process.env.TEST_REPORTER ?? 'spec';
const deadlineMs = Number(process.env.TEST_DEADLINE_MIN ?? '20') * 60_000;
// Older Node 20 releases lack --test-force-exit; there a leaked handle would keep a worker alive
// until the deadline, so it is passed wherever it exists.
const forceExit = process.allowedNodeEnvironmentFlags.has('--test-force-exit') ? ['--test-force-exit'] : [];
const SUMMARY = /^(?:ℹ|#) (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) ([\d.]+)$/;
const totals = { tests: 0, suites: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
const times = { ...lastTimes };
/** This run's figures per file: wall and CPU milliseconds (CPU of the worker process alone). */
const measured = {};
const started = performance.now();
let workerErrors = 0;

/** Process groups of the running workers: a worker and what its tests started go together. */
const groups = new Set();
/** Stops every process of a worker's group; false when none was left. */
function stopGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
]) {
  process.on(signal, () => {
    for (const pid of groups) stopGroup(pid);
    process.exit(code);
  });
}

function runWorker(index) {
  return new Promise((resolve) => {
    // Its own process group, so that a worker stopped at the deadline does not leave the services,
    // sandboxes and servers its tests started running (they would hold ports and cores).
    const child = fork('scripts/test-worker.mjs', [], {
      execArgv: ['--import', 'tsx', `--test-reporter=${reporter}`, ...forceExit],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      detached: true,
    });
    groups.add(child.pid);
    let current = '(loading test files)';
    let sawSummary = false;
    let failedHere = 0;
    child.on('message', (m) => {
      if (m.type === 'next') child.send({ type: 'file', file: queue.shift() ?? null });
      if (m.type === 'start') current = m.file;
      if (m.type === 'done') {
        times[m.file] = m.ms;
        measured[m.file] = { ms: m.ms, cpuMs: m.cpuMs };
      }
    });
    // A file's results are printed together: lines are held until a top-level line ends the block.
    let block = [];
    createInterface({ input: child.stdout }).on('line', (line) => {
      const total = SUMMARY.exec(line);
      if (total) {
        sawSummary = true;
        if (total[1] in totals) totals[total[1]] += Number(total[2]);
        if (total[1] === 'fail' || total[1] === 'cancelled') failedHere += Number(total[2]);
        return;
      }
      block.push(line);
      if (/^\S/.test(line) && !line.startsWith('▶')) {
        process.stdout.write(`${block.join('\n')}\n`);
        block = [];
      }
    });
    createInterface({ input: child.stderr }).on('line', (line) => process.stderr.write(`${line}\n`));
    const timer = setTimeout(() => {
      console.error(
        `worker ${index + 1}: still running after ${deadlineMs / 60_000} min, in ${current}; stopped`,
      );
      stopGroup(child.pid);
    }, deadlineMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      groups.delete(child.pid);
      if (stopGroup(child.pid)) {
        console.error(`worker ${index + 1}: processes its tests started were still running; stopped`);
      }
      if (block.length > 0) process.stdout.write(`${block.join('\n')}\n`);
      // A failing test sets exit code 1 with a summary that counts it; anything else is a worker error.
      // A worker that found the queue empty runs nothing, and node:test then prints no summary.
      const idle = code === 0 && current === '(loading test files)';
      if (!sawSummary && !idle) {
        console.error(`worker ${index + 1} ended (${signal ?? code}) in ${current}`);
        workerErrors += 1;
      } else if (code !== 0 && failedHere === 0) {
        // E.g. an unhandled rejection after a test ended, which node:test reports but counts nowhere.
        console.error(`worker ${index + 1} exited with code ${code}: an error outside any test, see above`);
        workerErrors += 1;
      }
      resolve();
    });
  });
}

await Promise.all(Array.from({ length: workers }, (_, i) => runWorker(i)));

try {
  mkdirSync(join('node_modules', '.cache', 'crm-proxy'), { recursive: true });
  writeFileSync(TIMES, `${JSON.stringify(times, null, 1)}\n`);
} catch {
  // Only a hint for the next run's order.
}

const prefix = reporter === 'tap' ? '#' : 'ℹ';
const slowest = Number(process.env.TEST_TIMES ?? '0');
if (slowest > 0) {
  const rows = Object.entries(measured)
    .sort((a, b) => b[1].ms - a[1].ms)
    .slice(0, slowest === 1 ? 15 : slowest);
  console.log(`${prefix} slowest files (wall ms, CPU ms of the worker process)`);
  for (const [file, m] of rows) {
    console.log(`${prefix}   ${String(m.ms).padStart(7)} ${String(m.cpuMs).padStart(7)}  ${file}`);
  }
}
const wall = performance.now() - started;
for (const [key, n] of Object.entries(totals)) console.log(`${prefix} ${key} ${n}`);
console.log(`${prefix} duration_ms ${wall.toFixed(0)}`);
const errors = workerErrors > 0 ? `, ${workerErrors} worker error(s)` : '';
console.log(
  `${totals.pass} passed, ${totals.fail} failed${errors} (${files.length} files, ${workers} workers)`,
);
process.exit(workerErrors > 0 || totals.fail > 0 || totals.cancelled > 0 ? 1 : 0);
