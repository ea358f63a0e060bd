#!/usr/bin/env node
// Launcher of `npm start`, `npm run cli` and the `crm-proxy` bin. It runs the TypeScript sources
// with Node's own type stripping (Node 22.18+ or 24). V8's code cache on disk (in the OS temp
// directory, or NODE_COMPILE_CACHE) keeps each module's stripped and compiled code, so a later start
// neither compiles nor strips again: the stripper (a WebAssembly module) is not even loaded then,
// which is why the cache is enabled here, before the first TypeScript file. Where the cache cannot
// be written (a read-only file system), start-up simply compiles as before.
import * as nodeModule from 'node:module';

// An older Node fails on the first TypeScript file with a message that does not say why.
if (typeof nodeModule.enableCompileCache !== 'function' || !process.features.typescript) {
  process.stderr.write(
    `crm-proxy needs Node.js 24 (or 22.18+), which runs its TypeScript sources; this is ${process.version}.\n` +
      'In the project folder, ". scripts/use-node24.sh" puts Node 24 first on PATH (see the README).\n',
  );
  process.exit(1);
}
nodeModule.enableCompileCache();
await import('../src/cli/index.ts');
