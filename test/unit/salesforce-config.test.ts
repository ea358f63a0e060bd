import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Config, ConfigError, loadConfig } from '../../src/config/index.ts';
import { settingsOf } from '../../src/providers/registry.ts';
import { salesforceProvider } from '../../src/providers/salesforce/index.ts';

const sf = (c: Config) => settingsOf(c.providers, salesforceProvider);
const base = { CRM_PROXY_DATA_DIR: '/tmp/x', CRM_PROXY_SANDBOX: 'true' };

test('CRM_PROXY_SF_BULK_THRESHOLD: absent → provider default; a whole number ≥ 1 → used; else a ConfigError', () => {
  assert.equal(sf(loadConfig(base)).bulkThreshold, undefined);
  assert.equal(sf(loadConfig({ ...base, CRM_PROXY_SF_BULK_THRESHOLD: '5000' })).bulkThreshold, 5000);
  for (const bad of ['0', '-1', '2.5', 'lots']) {
    assert.throws(
      () => loadConfig({ ...base, CRM_PROXY_SF_BULK_THRESHOLD: bad }),
      (e: unknown) => e instanceof ConfigError && /CRM_PROXY_SF_BULK_THRESHOLD/.test(e.message),
    );
  }
});
