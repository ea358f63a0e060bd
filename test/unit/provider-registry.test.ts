import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/errors/index.ts';
import type { ProviderDeps } from '../../src/providers/adapter.ts';
import { BUILT_IN_PROVIDERS } from '../../src/providers/index.ts';
import { ProviderRegistry } from '../../src/providers/registry.ts';

// Building the built-in adapters needs none of these; the registry only hands them on.
const deps = {} as unknown as ProviderDeps;

test('a connection of a CRM the deployment does not register answers 503 naming it', () => {
  const registry = new ProviderRegistry([], deps, {});
  assert.throws(
    () => registry.adapterFor({ provider: 'pipedrive' }),
    (error: unknown) =>
      error instanceof ApiError && error.status === 503 && /"pipedrive"/.test(error.message),
  );
});

test('a provider listed twice is refused when the registry is built', () => {
  const [first] = BUILT_IN_PROVIDERS;
  assert.ok(first);
  const module = { profile: first.profile, settings: first.settings, create: () => ({}) as never };
  assert.throws(
    () => new ProviderRegistry([module, module], deps, { [first.profile.id]: {} }),
    /listed twice/,
  );
});
