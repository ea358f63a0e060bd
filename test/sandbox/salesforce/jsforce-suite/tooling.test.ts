// Mirrors jsforce's integration file test/tooling.test.ts (11 tests). jsforce's describe / findOne
// tests use ApexClass; the sandbox has no Apex, so they run on CustomObject, a Tooling entity it
// serves. Anonymous Apex, Apex test runs and Apex completions are skipped (they need Apex). The
// StaticResource tests are todo: the sandbox's Tooling API has no StaticResource entity.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectTo } from '../jsforce-helpers.ts';
import { useSandbox } from '../rest-helpers.ts';

const { sf } = useSandbox();
const conn = () => connectTo(sf());
const NO_STATIC_RESOURCE = {
  todo: 'sandbox Tooling API has no StaticResource entity (create, multipart, Body)',
};
// A tiny ZIP (an empty archive: just the end-of-central-directory record), our own bytes.
const ZIP = Buffer.from('504b0506000000000000000000000000000000000000', 'hex');
const staticResource = (body: string | Buffer) => ({
  ContentType: 'application/zip',
  CacheControl: 'Private',
  Name: `EmptyZip_${Date.now()}`,
  Body: body,
});
const multipart = {
  multipartFileFields: { Body: { contentType: 'application/zip', filename: 'empty.zip' } },
};

test('tooling.describeGlobal() gives encoding, maxBatchSize and sobjects', async () => {
  const res = await conn().tooling.describeGlobal();
  assert.equal(typeof res.encoding, 'string');
  assert.equal(typeof res.maxBatchSize, 'number');
  assert.ok(Array.isArray(res.sobjects) && res.sobjects.length > 0);
});

test('tooling.sobject(...).describe() gives name, label and fields', async () => {
  const so = await conn().tooling.sobject('CustomObject').describe();
  assert.equal(so.name, 'CustomObject');
  assert.equal(typeof so.label, 'string');
  assert.ok(Array.isArray(so.fields) && so.fields.length > 0);
});

test('tooling.sobject(...).findOne() returns a record with an Id', async () => {
  const rec = await conn().tooling.sobject('CustomObject').findOne();
  assert.ok(rec, 'the org has custom objects');
  assert.equal(typeof rec.Id, 'string');
});

test('executeAnonymous', (t) => t.skip('needs Apex (anonymous Apex)'));
test('runTestsAsynchronous', (t) => t.skip('needs Apex (Apex test classes)'));
test('runTestsSynchronous', (t) => t.skip('needs Apex (Apex test classes)'));
test('completions("apex")', (t) => t.skip('needs Apex (Apex code completions)'));

test('create a StaticResource with a JSON body', NO_STATIC_RESOURCE, async () => {
  const res = await conn().tooling.create('StaticResource', staticResource(ZIP.toString('base64')));
  assert.equal(res.success, true);
});

test('create a StaticResource as multipart from a Buffer', NO_STATIC_RESOURCE, async () => {
  const res = await conn().tooling.create('StaticResource', staticResource(ZIP), multipart);
  assert.equal(res.success, true);
});

test('create a StaticResource as multipart from base64', NO_STATIC_RESOURCE, async () => {
  const res = await conn().tooling.create(
    'StaticResource',
    staticResource(ZIP.toString('base64')),
    multipart,
  );
  assert.equal(res.success, true);
});

test('download a StaticResource Body blob', NO_STATIC_RESOURCE, async () => {
  const made = await conn().tooling.create('StaticResource', staticResource(ZIP.toString('base64')));
  assert.equal(made.success, true);
  const rec = await conn().tooling.retrieve('StaticResource', made.id as string);
  assert.equal(typeof rec.Body, 'string');
  assert.equal(await conn().tooling.request<string>(rec.Body as string), ZIP.toString('base64'));
});
