// One test process for many test files (started by scripts/run-tests.mjs with `--import tsx`).
// Loading TypeScript and the service's modules once per process instead of once per file is what
// keeps `npm test` short. Each file runs as its own suite, named after its path, so the
// `before`/`after`/`beforeEach` hooks a file declares at top level apply to that file only, as they
// would in a process of its own. Files run one after the other: those given as arguments in that
// order, else each one asked of run-tests.mjs over IPC when the previous one has ended, so that a
// worker stuck with a long file is not also holding a queue of others.
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const nodeTest = require('node:test');
// `suite` is missing from older Node 20 releases.
const CAPTURED = ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'].filter(
  (name) => typeof nodeTest[name] === 'function',
);
const original = Object.fromEntries(CAPTURED.map((name) => [name, nodeTest[name]]));

/** Calls made while a file's module is evaluated; replayed inside that file's suite. */
let captured = null;

function capturing(name) {
  const fn = original[name];
  const wrapper = (...args) => {
    if (captured === null) return fn(...args);
    captured.push(() => fn(...args));
    return Promise.resolve();
  };
  // test.skip, describe.only, it.todo, …: the same capture, with the variant's option set.
  for (const variant of ['skip', 'todo', 'only']) {
    if (typeof fn[variant] !== 'function') continue;
    wrapper[variant] = (...args) => {
      if (captured === null) return fn[variant](...args);
      captured.push(() => fn[variant](...args));
      return Promise.resolve();
    };
  }
  return wrapper;
}

for (const name of CAPTURED) nodeTest[name] = capturing(name);
// `import { test } from 'node:test'` reads these live bindings; make them the wrappers. The ESM view
// must not exist before this point (nothing here imports node:test as ESM), or files would bypass it.
syncBuiltinESMExports();
const esm = await import('node:test');
if (CAPTURED.some((name) => esm[name] !== nodeTest[name])) {
  throw new Error('node:test exports could not be wrapped: files would share one suite');
}

/** Listening servers in this process: a file that leaves one open slows every file after it. */
const servers = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length;

const send = (message) => process.send?.(message);

/** Imports one file, its test calls held back, and runs them as one suite named after the file. */
async function runFile(file) {
  // Measured from the import on: loading what a file needs is part of what it costs.
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  send({ type: 'start', file });
  captured = [];
  try {
    await import(pathToFileURL(resolve(file)).href);
  } catch (err) {
    // A file that fails to load is a failing suite, not a crashed process.
    const error = err;
    captured = [() => original.test('loads', () => Promise.reject(error))];
  }
  const calls = captured;
  captured = null;
  let serversBefore = 0;
  await original.describe(file, () => {
    original.before(() => {
      serversBefore = servers();
    });
    for (const call of calls) call();
    // Registered last, so it runs after the file's own `after` hooks (servers closed, dirs removed).
    original.after(async () => {
      const cpu = process.cpuUsage(cpuBefore);
      send({
        type: 'done',
        file,
        ms: Math.round(performance.now() - started),
        cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      });
      // A closed server lets go of its handle a moment later.
      for (let waited = 0; servers() > serversBefore && waited < 2000; waited += 20) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const left = servers() - serversBefore;
      if (left > 0) process.stderr.write(`warning: ${file} left ${left} server(s) listening\n`);
    });
  });
}

/** The next file from run-tests.mjs (longest first, to whichever worker is free), or null at the end. */
function nextFile() {
  return new Promise((resolve) => {
    process.once('message', (m) => resolve(m.type === 'file' ? m.file : null));
    send({ type: 'next' });
  });
}

// Files given on the command line run in that order; without any, they are asked for one by one.
const given = process.argv.slice(2);
if (given.length > 0) {
  for (const file of given) await runFile(file);
} else {
  for (let file = await nextFile(); file !== null; file = await nextFile()) await runFile(file);
  process.disconnect?.();
}
