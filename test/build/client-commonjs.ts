// The README's SDK snippets, as written, in a project made by `npm init -y` (npm 11 writes
// "type": "commonjs"): once as CommonJS JavaScript run by Node, once as TypeScript compiled by tsc
// (module nodenext, so the import becomes a require of the package's CommonJS build, typed by its
// CommonJS declarations). The SDK is installed from the repository folder with its `prepare` step
// approved in allowScripts beforehand, as the README says: npm 11 then has nothing to warn about.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { startStack } from '../helpers/stack.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const CLIENT = join(ROOT, 'packages/client');
const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund'];

/** The fenced block right after `<!-- sdk: NAME -->` in the README. */
function snippet(readme: string, name: string): string {
  const m = new RegExp(`<!-- sdk: ${name} -->\\n\`\`\`[a-z]+\\n([\\s\\S]*?)\\n\`\`\``).exec(readme);
  assert.ok(m?.[1], `README has the ${name} snippet`);
  return `${m[1]}\n`;
}

test('the README SDK snippets run as written in an `npm init -y` project, as CommonJS JS and as TypeScript', async (t) => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const s = await startStack(t);
  const dir = await mkdtemp(join(tmpdir(), 'crm-proxy-sdk-cjs-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const npm = (args: string[]) => run('npm', args, { cwd: dir, timeout: 600_000 });

  await npm(['init', '-y']);
  const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  assert.equal(manifest['type'] ?? 'commonjs', 'commonjs', 'npm init -y makes a CommonJS project');
  // What `npm install-scripts approve` writes, set before the install.
  manifest['allowScripts'] = { [`file:${CLIENT}`]: true };
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const installed = await npm([
    'install',
    '--install-links',
    ...NPM_FLAGS,
    CLIENT,
    'typescript@5.9.3',
    '@types/node@24.19.4',
  ]);
  assert.doesNotMatch(installed.stderr, /not yet covered by allowScripts/, installed.stderr);

  const env = { ...process.env, CRM_PROXY_URL: s.baseUrl, CRM_PROXY_TOKEN: s.tokens.salesforce };
  const expectOutput = (stdout: string, how: string) => {
    const lines = stdout.trim().split('\n');
    assert.match(lines[0] ?? '', /^001[0-9A-Za-z]{15}$/, `${how}: the inserted id`);
    assert.ok(lines.includes('Acme Corp'), `${how}: the SOQL loop printed the seeded account`);
    assert.match(lines.at(-1) ?? '', /^unknown_field .*"Name"/, `${how}: the typed error`);
  };

  await writeFile(join(dir, 'main.js'), snippet(readme, 'commonjs'));
  const js = await run(process.execPath, ['main.js'], { cwd: dir, env });
  expectOutput(js.stdout, 'CommonJS JavaScript');

  await writeFile(join(dir, 'main.ts'), snippet(readme, 'typescript'));
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        strict: true,
        types: ['node'],
      },
      files: ['main.ts'],
    }),
  );
  await run(process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '-p', '.'], { cwd: dir });
  assert.match(await readFile(join(dir, 'main.js'), 'utf8'), /require\("@crm-proxy\/client"\)/);
  const ts = await run(process.execPath, ['main.js'], { cwd: dir, env });
  expectOutput(ts.stdout, 'TypeScript');

  // An ES module next to them imports the ES module build.
  await writeFile(
    join(dir, 'esm.mjs'),
    "import { createCrmProxyClient, CrmProxyError } from '@crm-proxy/client';\nconsole.log(typeof createCrmProxyClient, typeof CrmProxyError);\n",
  );
  assert.equal((await run(process.execPath, ['esm.mjs'], { cwd: dir })).stdout.trim(), 'function function');
});
