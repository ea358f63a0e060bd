// jsforce's integration file test/metadata.test.ts (13 tests) uses the SOAP Metadata API (CRUD calls,
// list, deploy, retrieve) and its REST deploy. The sandbox serves neither, so every test is skipped;
// custom objects and fields are read through the sandbox's Tooling API instead (tooling.test.ts).
import { test } from 'node:test';

const REASON = 'unsupported feature: Metadata API (SOAP CRUD, deploy, retrieve) is not served by the sandbox';

for (const name of [
  'create two custom objects',
  'read them',
  'update them',
  'upsert one existing and one new',
  'rename one',
  'list custom objects',
  'delete them',
  'deploy a package over REST',
  'deployRecentValidation over REST',
  'deployRecentValidation over SOAP',
  'deploy a zipped package',
  'retrieve a package',
  'list metadata after a session refresh',
]) {
  test(name, (t) => t.skip(REASON));
}
