import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validForIndex } from '../../sandbox/salesforce/seed/address-picklists.ts';
import { countriesFromDescribe, validForIndexes } from '../../src/providers/salesforce/countries.ts';

test('validFor: bit i from the most significant bit of byte 0 marks controlling entry i', () => {
  // "oAAA" is 10100000 00000000 00000000: entries 0 and 2; "AAAI" sets bit 20 only.
  assert.deepEqual(validForIndexes('oAAA', 24), [0, 2]);
  assert.deepEqual(validForIndexes('AAAI', 24), [20]);
  assert.deepEqual(validForIndexes('gAAA', 24), [0]);
  // Bits past the controlling list's end name nothing; null and '' name nothing.
  assert.deepEqual(validForIndexes('AAAI', 10), []);
  assert.deepEqual(validForIndexes(null, 10), []);
  assert.deepEqual(validForIndexes('', 10), []);
  for (const i of [0, 7, 8, 9, 200, 234]) assert.deepEqual(validForIndexes(validForIndex(i, 235), 235), [i]);
});

test('a state valid for two countries is listed under both; entries without validFor under none', () => {
  const entry = (value: string, label: string, validFor: string | null, active = true) => ({
    value,
    label,
    validFor,
    active,
    defaultValue: false,
  });
  const list = countriesFromDescribe({
    name: 'Account',
    fields: [
      {
        name: 'BillingCountryCode',
        picklistValues: [entry('AA', 'Aa', null), entry('BB', 'Bb', null, false)],
      },
      {
        name: 'BillingStateCode',
        controllerName: 'BillingCountryCode',
        picklistValues: [
          entry('X', 'Both', 'wA=='),
          entry('Y', 'Second', 'QA==', false),
          entry('Z', 'None', null),
        ],
      },
    ],
  });
  assert.equal(list.source, 'org_picklists');
  assert.deepEqual(list.countries, [
    {
      code: 'AA',
      label: 'Aa',
      active: true,
      visible: true,
      states: [{ code: 'X', label: 'Both', active: true, visible: true }],
    },
    {
      code: 'BB',
      label: 'Bb',
      active: false,
      visible: false,
      states: [
        { code: 'X', label: 'Both', active: true, visible: true },
        { code: 'Y', label: 'Second', active: false, visible: false },
      ],
    },
  ]);
  assert.equal(
    countriesFromDescribe({ name: 'Account', fields: [{ name: 'BillingCountry' }] }).source,
    'iso_default',
  );
});
