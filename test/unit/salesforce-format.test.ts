import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { ApiError } from '../../src/errors/index.ts';
import { parseBulkError } from '../../src/providers/salesforce/bulk2.ts';
import type { ObjectDescribe } from '../../src/providers/salesforce/describe.ts';
import { checkDefinition } from '../../src/providers/salesforce/fields.ts';
import {
  csvCell,
  prepareRecords,
  toCollectionsRecord,
  toCsv,
  toCsvRows,
} from '../../src/providers/salesforce/format.ts';

const META: ObjectDescribe = {
  name: 'Contact',
  fields: [
    { name: 'Id', type: 'id' },
    { name: 'LastName', type: 'string' },
    { name: 'AccountId', type: 'reference', relationshipName: 'Account' },
    { name: 'Tags__c', type: 'multipicklist' },
  ],
};

test('prepareRecords maps names case-insensitively, drops attributes, turns parent references into dotted keys', () => {
  const [r] = prepareRecords(META, [
    {
      attributes: { type: 'Contact' },
      lastname: 'Ng',
      ACCOUNT: { External_Id__c: 'A-1' },
      tags__c: ['a', 'b'],
    },
  ]);
  assert.deepEqual(r, { LastName: 'Ng', 'Account.External_Id__c': 'A-1', Tags__c: ['a', 'b'] });
  assert.deepEqual(toCollectionsRecord('Contact', r ?? {}), {
    attributes: { type: 'Contact' },
    LastName: 'Ng',
    Account: { External_Id__c: 'A-1' },
    Tags__c: 'a;b',
  });
});

test('prepareRecords: an unknown field is a 400 naming the closest real one', () => {
  assert.throws(
    () => prepareRecords(META, [{ LastName: 'x' }, { LastNmae: 'y' }]),
    (e: unknown) =>
      e instanceof ApiError &&
      e.code === 'unknown_field' &&
      /"LastNmae" \(did you mean "LastName"\?\)/.test(e.message),
  );
});

test('CSV cells: #N/A for null, booleans, numbers, picklists joined, datetime offsets with a colon', async () => {
  assert.equal(csvCell(null), '#N/A');
  assert.equal(csvCell(undefined), '');
  assert.equal(csvCell(true), 'true');
  assert.equal(csvCell(12.5), '12.5');
  assert.equal(csvCell(['a', 'b']), 'a;b');
  assert.equal(csvCell('2024-01-01T10:00:00.000+0000'), '2024-01-01T10:00:00.000+00:00');
  assert.equal(csvCell('2024-01-01'), '2024-01-01');
  const { header, rows } = toCsvRows([{ LastName: 'a,"b"' }, { LastName: null, Tags__c: ['x'] }]);
  assert.deepEqual(header, ['LastName', 'Tags__c']);
  const csv = Buffer.concat(await toCsv(header, rows).toArray());
  assert.deepEqual(parse(csv), [
    ['LastName', 'Tags__c'],
    ['a,"b"', ''],
    ['#N/A', 'x'],
  ]);
});

test('parseBulkError reads Bulk’s STATUS:message:fields -- format', () => {
  assert.deepEqual(parseBulkError('REQUIRED_FIELD_MISSING:Required fields are missing: [Name]:Name --'), {
    statusCode: 'REQUIRED_FIELD_MISSING',
    message: 'Required fields are missing: [Name]',
    fields: ['Name'],
  });
  assert.deepEqual(parseBulkError('UNABLE_TO_LOCK_ROW:unable to obtain exclusive access: --'), {
    statusCode: 'UNABLE_TO_LOCK_ROW',
    message: 'unable to obtain exclusive access',
    fields: [],
  });
});

test('checkDefinition adds __c, requires length for Text and values for picklists', () => {
  assert.equal(checkDefinition({ name: 'Tier', label: 'T', type: 'Text', length: 10 }).name, 'Tier__c');
  assert.equal(checkDefinition({ name: 'Tier__C', label: 'T', type: 'Checkbox' }).name, 'Tier__c');
  assert.throws(() => checkDefinition({ name: 'T', label: 'T', type: 'Text' }), /length/);
  assert.throws(() => checkDefinition({ name: 'T', label: 'T', type: 'Picklist', valueSet: {} }), /valueSet/);
  const { metadata } = checkDefinition({ name: 'N', label: 'N', type: 'Number', precision: 10, scale: 2 });
  assert.deepEqual(metadata, { label: 'N', precision: 10, scale: 2 });
});
