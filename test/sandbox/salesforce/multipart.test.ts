import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startSalesforceSandbox } from '../../../sandbox/salesforce/index.ts';

test('a record with a blob field can be inserted as multipart/form-data (entity JSON part plus the binary part)', async (t) => {
  const sf = await startSalesforceSandbox({ port: 0 });
  t.after(() => sf.close());
  const auth = { authorization: `Bearer ${sf.credentials.accessToken}` };
  const bytes = Buffer.from([0x00, 0xff, 0x0d, 0x0a, 0x2d, 0x2d, 0x41]); // binary, with CRLF and "--" inside
  const form = new FormData();
  form.append(
    'entity_content',
    new Blob([JSON.stringify({ PathOnClient: 'docs/report.pdf' })], { type: 'application/json' }),
  );
  form.append('VersionData', new Blob([bytes]), 'report.pdf');
  const res = await fetch(`${sf.url}/services/data/v62.0/sobjects/ContentVersion`, {
    method: 'POST',
    headers: auth,
    body: form,
  });
  const created = (await res.json()) as { id: string; success: boolean };
  assert.equal(res.status, 201, JSON.stringify(created));
  assert.match(created.id, /^068/);

  const rec = (await (
    await fetch(`${sf.url}/services/data/v62.0/sobjects/ContentVersion/${created.id}`, { headers: auth })
  ).json()) as Record<string, unknown>;
  // No Title given: Salesforce names the file after PathOnClient.
  assert.equal(rec.Title, 'report');
  assert.equal(rec.FileExtension, 'pdf');
  assert.equal(rec.ContentSize, bytes.length);
  assert.match(String(rec.ContentDocumentId), /^069/);
  const blob = await fetch(
    `${sf.url}/services/data/v62.0/sobjects/ContentVersion/${created.id}/VersionData`,
    {
      headers: auth,
    },
  );
  assert.equal(blob.status, 200);
  assert.deepEqual(Buffer.from(await blob.arrayBuffer()), bytes);

  // A multipart body without the entity part is a 400 naming what is missing, never a 500.
  const bad = new FormData();
  bad.append('VersionData', new Blob([bytes]), 'x.bin');
  const refused = await fetch(`${sf.url}/services/data/v62.0/sobjects/ContentVersion`, {
    method: 'POST',
    headers: auth,
    body: bad,
  });
  assert.equal(refused.status, 400);
  const errors = (await refused.json()) as { errorCode: string; message: string }[];
  assert.equal(errors[0]?.errorCode, 'INVALID_MULTIPART_REQUEST');
  assert.match(errors[0]?.message ?? '', /entity_/);
});
