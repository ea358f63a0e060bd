#!/usr/bin/env node
// `npm run build`: compiles src/ and sandbox/ to dist/ with TypeScript's own per-file transpiler
// (the `.ts` import specifiers become `.js`), and copies the data files the code reads at run time
// (the sandboxes' seed JSON, the API examples) next to the compiled modules. Production then runs
// `node dist/src/cli/index.js serve` with no TypeScript loader.
//
// Per-file transpiling takes seconds where a full `tsc` emit takes about a minute on a busy
// machine; the type check is its own step (`npm run typecheck`), which the Dockerfile runs first.
// tsconfig.json sets isolatedModules and verbatimModuleSyntax, so each file compiles on its own.
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';

const OUT = process.argv[2] ?? 'dist';
const ROOTS = ['src', 'sandbox'];

const compilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ES2022,
  verbatimModuleSyntax: true,
  rewriteRelativeImportExtensions: true,
  sourceMap: true,
};

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

rmSync(OUT, { recursive: true, force: true });
let modules = 0;
let problems = 0;
for (const file of ROOTS.flatMap(walk)) {
  if (file.endsWith('.md')) continue;
  const target = join(OUT, file);
  mkdirSync(dirname(target), { recursive: true });
  if (!file.endsWith('.ts')) {
    cpSync(file, target); // run-time data (seed JSON)
    continue;
  }
  const result = ts.transpileModule(readFileSync(file, 'utf8'), {
    compilerOptions,
    fileName: file,
    reportDiagnostics: true,
  });
  for (const d of result.diagnostics ?? []) {
    problems++;
    process.stderr.write(`${file}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}\n`);
  }
  const js = target.replace(/\.ts$/, '.js');
  writeFileSync(js, result.outputText);
  if (result.sourceMapText !== undefined) writeFileSync(`${js}.map`, result.sourceMapText);
  modules++;
}
// The OpenAPI document's examples (docs/examples/), read at run time from beside the sources.
cpSync('docs/examples', join(OUT, 'docs', 'examples'), { recursive: true });
if (problems > 0) process.exit(1);
process.stdout.write(`built ${modules} modules into ${OUT}/ (run: node ${OUT}/src/cli/index.js serve)\n`);
