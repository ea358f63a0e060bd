#!/usr/bin/env node
// Launcher: runs the TypeScript sources with Node's own type stripping (Node 22.18+ or 24).
await import('../src/cli/index.ts');
