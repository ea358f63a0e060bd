#!/usr/bin/env node
// Launcher. An installed package or image without the TypeScript sources runs the compiled build
// (dist/, `npm run build`) with plain node. A checkout runs the sources through tsx, so a dist/ left
// over from an earlier build never shadows edited code.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/src/cli/index.js', import.meta.url);
const sources = new URL('../src/cli/index.ts', import.meta.url);
if (process.env.CRM_PROXY_RUN_COMPILED === '1' || (!existsSync(sources) && existsSync(compiled))) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(sources.href);
}
