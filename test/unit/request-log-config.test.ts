import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { readLimitInfo } from '../../src/providers/salesforce/allowance.ts';

test('CRM_PROXY_REQUEST_LOG_DAYS: 7 by default, whole days from 1 to 3650, a bad value names the variable', () => {
  assert.equal(loadConfig({}).requestLogDays, 7);
  assert.equal(loadConfig({ CRM_PROXY_REQUEST_LOG_DAYS: '30' }).requestLogDays, 30);
  for (const bad of ['0', '1.5', 'week', '3651']) {
    assert.throws(
      () => loadConfig({ CRM_PROXY_REQUEST_LOG_DAYS: bad }),
      (err: unknown) => err instanceof ConfigError && /CRM_PROXY_REQUEST_LOG_DAYS/.test(err.message),
    );
  }
});

test('the daily allowance is read from Sforce-Limit-Info', () => {
  assert.deepEqual(readLimitInfo({ 'sforce-limit-info': 'api-usage=18/15000' }), { used: 18, limit: 15000 });
  assert.deepEqual(
    readLimitInfo({ 'sforce-limit-info': ['per-app-api-usage=2/250(appName=x), api-usage=7/100'] }),
    {
      used: 7,
      limit: 100,
    },
  );
  assert.equal(readLimitInfo({}), undefined);
  assert.equal(readLimitInfo({ 'sforce-limit-info': 'api-usage=5/0' }), undefined);
  assert.equal(readLimitInfo({ 'sforce-limit-info': 'garbage' }), undefined);
});
