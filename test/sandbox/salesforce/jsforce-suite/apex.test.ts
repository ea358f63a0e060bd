// jsforce's integration file test/apex.test.ts (5 tests) calls an Apex REST class (/services/apexrest)
// that its org setup deploys. The sandbox runs no Apex, so every test is skipped.
import { test } from 'node:test';

const REASON = 'needs Apex (Apex REST class JSforceTestApexRest)';

for (const name of [
  'apex.post creates an account through the Apex REST class',
  'apex.get reads it back',
  'apex.put replaces fields',
  'apex.patch changes the name',
  'apex.delete removes it',
]) {
  test(name, (t) => t.skip(REASON));
}
