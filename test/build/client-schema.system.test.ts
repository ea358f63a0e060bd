// The typed client's generated types must be those of the current routes: regenerate with
// `npm run client:generate` when this fails.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { CLIENT_SCHEMA_FILE, generateClientSchema } from '../../scripts/client-schema.ts';

test('packages/client/src/schema.ts is generated from the current OpenAPI document', async () => {
  const committed = await readFile(CLIENT_SCHEMA_FILE, 'utf8');
  const fresh = await generateClientSchema();
  assert.ok(
    committed === fresh,
    'packages/client/src/schema.ts is stale: run `npm run client:generate` and commit the result',
  );
});
