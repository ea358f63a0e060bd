// jsforce's integration file test/quick-action.test.ts (6 tests) lists, describes and runs quick actions.
// The sandbox serves no quickActions resources (global or per object), so every test is skipped.
import { test } from 'node:test';

const REASON = 'unsupported feature: quick actions (/quickActions) are not served by the sandbox';

for (const name of [
  'list global quick actions',
  'list Account quick actions',
  'describe the LogACall action',
  'get its default values',
  'get its default values for an account',
  'execute it for an account',
]) {
  test(name, (t) => t.skip(REASON));
}
