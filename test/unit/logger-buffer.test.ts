import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';

// The service's logger buffers lines and writes them asynchronously; these check that nothing is
// lost or held back: a quiet service's lines still come out, and pending lines are written at exit.
const LOGGER = new URL('../../src/context.ts', import.meta.url).href;

function child(script: string) {
  const proc = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  proc.stdout.on('data', (d) => (out += String(d)));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve));
  return { proc, output: () => out, exited };
}

test('a single line of a quiet service reaches stdout without more traffic', async () => {
  const c = child(`
    const { createLogger } = await import(${JSON.stringify(LOGGER)});
    createLogger({ logLevel: 'info' }).info({ marker: 'quiet-line' }, 'hello');
    process.stdin.resume();
    process.stdin.on('end', () => process.exit(0));
  `);
  const deadline = Date.now() + 30_000;
  while (!c.output().includes('quiet-line') && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  const seen = c.output();
  c.proc.stdin.end();
  assert.equal(await c.exited, 0);
  assert.match(
    seen,
    /"marker":"quiet-line".*"msg":"hello"/,
    'the line came out while the process kept running',
  );
});

test('lines pending at exit are written, on a normal exit and on process.exit', async () => {
  for (const ending of ['', 'process.exit(3);']) {
    const c = child(`
      const { createLogger } = await import(${JSON.stringify(LOGGER)});
      const log = createLogger({ logLevel: 'info' });
      for (let i = 0; i < 100; i++) log.info({ n: i }, 'line');
      ${ending}
    `);
    const code = await c.exited;
    assert.equal(code, ending === '' ? 0 : 3);
    const written = c
      .output()
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { n: number }).n);
    const every = Array.from({ length: 100 }, (_, i) => i);
    if (ending === '') {
      assert.deepEqual(written, every, 'every line written, in order (normal exit)');
    } else {
      // process.exit() cannot wait for a batch already being written on a worker thread: the
      // pending lines are written synchronously and may land before it. None is lost or doubled.
      assert.deepEqual(
        [...written].sort((a, b) => a - b),
        every,
        'every line written once (process.exit)',
      );
    }
  }
});
