// The API document's CRM texts are composed from the registered profiles: one CRM, several, or none
// with a given note each read as a sentence, and a placeholder the composer does not know fails the build.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { providerTexts, withProviderTexts } from '../../src/http/plugins/openapi-providers.ts';
import type { ProviderProfile } from '../../src/providers/adapter.ts';
import { HUBSPOT } from '../../src/providers/hubspot/profile.ts';
import { SALESFORCE } from '../../src/providers/salesforce/profile.ts';

const OTHER: ProviderProfile = {
  ...HUBSPOT,
  id: 'othercrm',
  displayName: 'OtherCRM',
  limits: { getIds: 25, writeRecords: 25, deleteIds: 25, getIdsWithHistory: 5 },
  objectName: { pattern: /^[a-z]+$/, example: 'tasks' },
  writeInterfaces: ['rest', 'bulk'],
  doc: { apiHost: '`https://api.other.example`', oauthApp: 'the OtherCRM app', loginHost: 'its region host' },
};

test('the built-in CRMs read as the document wrote them by hand', () => {
  const texts = providerTexts([SALESFORCE, HUBSPOT]);
  assert.equal(texts['names'], 'Salesforce and HubSpot');
  assert.equal(texts['ids'], '`salesforce` or `hubspot`');
  assert.equal(
    texts['objectNames'],
    'Salesforce `Account`, `Invoice__c`; HubSpot `contacts`, `0-1`, `2-123`, `p_pets`',
  );
  assert.equal(texts['oauthApps'], 'the Salesforce connected app and the HubSpot app');
  assert.equal(
    texts['loginHosts'],
    'Salesforce only: `login.salesforce.com`, `test.salesforce.com` or a My Domain URL.',
  );
  assert.equal(texts['history'], 'HubSpot only: at most 50 ids then.');
  assert.equal(texts['writeInterfaces'], '`collections` or `bulk2` on Salesforce');
  assert.equal(texts['upsertKeys'], ', an external-id field (Salesforce) or a unique property (HubSpot)');
});

test('a third CRM joins every list; notes of several CRMs name each one', () => {
  const texts = providerTexts([SALESFORCE, HUBSPOT, OTHER]);
  assert.equal(texts['names'], 'Salesforce, HubSpot and OtherCRM');
  assert.equal(texts['ids'], '`salesforce`, `hubspot` or `othercrm`');
  assert.equal(texts['getIds'], 'up to 10000 on Salesforce, up to 100 on HubSpot, up to 25 on OtherCRM');
  assert.equal(
    texts['loginHosts'],
    'Salesforce: `login.salesforce.com`, `test.salesforce.com` or a My Domain URL; OtherCRM: its region host.',
  );
  assert.equal(texts['history'], 'HubSpot: at most 50 ids then; OtherCRM: at most 5 ids then.');
  assert.equal(
    texts['writeInterfaces'],
    '`collections` or `bulk2` on Salesforce; `rest` or `bulk` on OtherCRM',
  );
});

test('a note no registered CRM has says so', () => {
  const texts = providerTexts([HUBSPOT]);
  assert.equal(texts['loginHosts'], 'No CRM of this deployment takes a login host.');
  assert.equal(texts['writeInterfaces'], 'every CRM of this deployment has one');
  assert.equal(texts['allowance'], 'no CRM of this deployment reports one');
});

test('placeholders are filled everywhere in a document; an unknown one throws', () => {
  const texts = providerTexts([SALESFORCE, HUBSPOT]);
  const doc = {
    info: { description: 'Access to {{crm.names}}.' },
    list: [{ d: 'The CRM: {{crm.ids}}.' }],
    n: 1,
  };
  assert.deepEqual(withProviderTexts(doc, texts), {
    info: { description: 'Access to Salesforce and HubSpot.' },
    list: [{ d: 'The CRM: `salesforce` or `hubspot`.' }],
    n: 1,
  });
  assert.throws(() => withProviderTexts({ d: '{{crm.nothing}}' }, texts), /unknown API document placeholder/);
});
