#!/usr/bin/env node
// Launcher. A checkout runs the TypeScript sources with Node's own type stripping, so a dist/ left
// over from an earlier build never shadows edited code; an installed package or image without the
// sources runs the compiled build (dist/, `npm run build`).
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/src/cli/index.js', import.meta.url);
const sources = new URL('../src/cli/index.ts', import.meta.url);
const useCompiled =
  process.env.CRM_PROXY_RUN_COMPILED === '1' || (!existsSync(sources) && existsSync(compiled));
await import(useCompiled ? compiled.href : sources.href);
