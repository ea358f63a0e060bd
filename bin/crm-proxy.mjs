#!/usr/bin/env node
// Thin launcher: loads tsx so the TypeScript sources run without a build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/index.ts');
