import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { startStack } from '../helpers/stack.ts';
import { type Block, parseShown, readBlocks, shapeProblems } from './examples.ts';

const run = promisify(execFile);
const FILES = [
  'README.md',
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
];
const blocks = FILES.flatMap((f) => readBlocks(f));
const definitions = blocks.filter((b) => b.definitions);

/** The blocks marked as not runnable, each with its reason: a new one is a deliberate choice. */
const NOT_RUN: string[] = [
  'docs/salesforce-writes.md: not run: needs more than 10 000 records to page',
  'docs/sandboxes.md: not run: talks to a sandbox started on its own port',
];

const TOKEN_LIKE = /\$\{?(\w*TOKEN\w*|BASE|HS|H|URL\w*)\b/g;

test('one naming for the service and the tokens in every example, defined once', () => {
  assert.equal(definitions.length, 1, 'exactly one block marked <!-- examples: definitions -->');
  assert.equal(definitions[0]?.file, 'README.md');
  for (const name of ['CRM_PROXY_URL', 'CRM_PROXY_TOKEN', 'CRM_PROXY_HS_TOKEN']) {
    assert.match(definitions[0]?.code ?? '', new RegExp(`export ${name}=`));
  }
  const allowed = new Set([
    'CRM_PROXY_URL',
    'CRM_PROXY_TOKEN',
    'CRM_PROXY_HS_TOKEN',
    'CRM_PROXY_METRICS_TOKEN',
  ]);
  for (const b of blocks.filter((x) => !x.definitions)) {
    for (const m of b.code.matchAll(TOKEN_LIKE)) {
      assert.ok(
        allowed.has(m[1] ?? ''),
        `${b.file}:${b.line}: $${m[1]} (use $CRM_PROXY_URL, $CRM_PROXY_TOKEN, $CRM_PROXY_HS_TOKEN)`,
      );
    }
  }
  assert.deepEqual(
    blocks.filter((b) => b.notRun !== undefined).map((b) => `${b.file}: ${b.notRun}`),
    NOT_RUN,
  );
});

/** Runs one block with bash and curl against the stack; each curl's status goes to stderr. */
async function runBlock(block: Block, cwd: string): Promise<Array<{ out: string; statuses: number[] }>> {
  const parts = [
    `curl() { command curl --write-out '%{stderr}@@status %{http_code}\\n' "$@"; }`,
    definitions[0]?.code ?? '',
    ...block.commands.map((c, i) => `printf '\\n@@cmd ${i}\\n'; printf '@@cmd ${i}\\n' >&2\n${c.text}`),
  ];
  const { stdout, stderr } = await run('bash', ['-c', parts.join('\n')], {
    cwd,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: cwd },
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const outs = stdout.split(/\n@@cmd \d+\n/).slice(1);
  const errs = stderr.split(/@@cmd \d+\n/).slice(1);
  return block.commands.map((_, i) => ({
    out: outs[i] ?? '',
    statuses: [...(errs[i] ?? '').matchAll(/@@status (\d{3})/g)].map((m) => Number(m[1])),
  }));
}

function bodyOf(text: string, out: string): string {
  if (!/\scurl\s+(-\w*i\w*|--include)\s|^curl\s+-\w*i/.test(` ${text}`)) return out.trim();
  const at = out.search(/\r?\n\r?\n/);
  return at < 0 ? '' : out.slice(at).trim();
}

const runnable = blocks.filter((b) => b.notRun === undefined && !b.definitions);

/** Runs a block and checks each command's status and JSON against what the markdown shows. */
async function checkBlock(block: Block, cwd: string, pass: string, again = false): Promise<void> {
  const where = `${block.file}:${block.line}${pass}`;
  const results = await runBlock(block, cwd);
  block.commands.forEach((command, i) => {
    const { out, statuses } = results[i] ?? { out: '', statuses: [] };
    // A custom field exists once: adding it again is refused, and says so.
    if (again && /add_custom_field/.test(command.text) && [400, 409].includes(statuses.at(-1) ?? 0)) {
      assert.match(out, /already|exists/i, `${block.file}:${block.line}: a second add says why`);
      return;
    }
    const label = `${where}: ${command.text.split('\n')[0]?.slice(0, 100)}`;
    if (/\bcurl\s/.test(command.text)) {
      assert.ok(statuses.length > 0, `${label}: no request was sent (${out.slice(0, 200)})`);
    }
    const shown = command.json === undefined ? undefined : parseShown(command.json);
    const showsError = typeof shown === 'object' && shown !== null && 'error' in shown;
    const last = statuses.at(-1) ?? 0;
    if (command.status !== undefined) assert.equal(last, command.status, `${label}: status`);
    else if (!showsError) {
      for (const st of statuses)
        assert.ok(st >= 200 && st < 300, `${label}: status ${st}: ${out.slice(0, 400)}`);
    }
    const body = bodyOf(command.text, out);
    if (shown !== undefined) {
      let actual: unknown;
      assert.doesNotThrow(
        () => {
          actual = JSON.parse(body);
        },
        `${label}: not JSON: ${body.slice(0, 300)}`,
      );
      assert.deepEqual(shapeProblems(shown, actual), [], `${label}: ${body.slice(0, 600)}`);
    } else if (body !== '' && !command.text.includes('|') && !/\w+=\$\(/.test(command.text)) {
      assert.doesNotThrow(() => JSON.parse(body), `${label}: not JSON: ${body.slice(0, 300)}`);
    }
  });
}

/** A stack and a working directory holding the sandbox.json `npm start` writes. */
async function place(t: import('node:test').TestContext): Promise<string> {
  const s = await startStack(t);
  const cwd = mkdtempSync(join(tmpdir(), 'crm-proxy-docs-'));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  mkdirSync(join(cwd, 'data'));
  writeFileSync(join(cwd, 'data', 'sandbox.json'), JSON.stringify({ base_url: s.baseUrl, tokens: s.tokens }));
  return cwd;
}

describe('every curl example of the README and docs runs against the sandboxes', () => {
  for (const file of FILES) {
    const mine = runnable.filter((b) => b.file === file);
    if (mine.length === 0) continue;
    test(file, async (t) => {
      const cwd = await place(t);
      for (const block of mine) await checkBlock(block, cwd, '');
    });
  }
});

// A reader runs the examples of several pages on one sandbox, some twice: no example may depend on
// another having run, or not having run, before it.
test('the examples run again on one sandbox, every page after the others, in reverse order', async (t) => {
  const cwd = await place(t);
  const files = FILES.filter((f) => runnable.some((b) => b.file === f));
  for (const file of [...files, ...files.reverse()]) {
    for (const block of runnable.filter((b) => b.file === file))
      await checkBlock(block, cwd, ' (shared sandbox)', true);
  }
});
