import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import type { CrmSession } from '../../src/providers/adapter.ts';
import type { OutboundResponse } from '../../src/providers/client/types.ts';
import { bulkWrite } from '../../src/providers/salesforce/bulk2.ts';
import type { Org } from '../../src/providers/salesforce/org.ts';
import { ManualClock } from '../helpers/manual-clock.ts';

const answer = (status: number, text: string): OutboundResponse => ({
  status,
  headers: {},
  text,
  attempts: 1,
});

/**
 * A Bulk API 2.0 endpoint that answers result files in reverse order of upload; rows whose Name
 * is empty fail; ids are handed out in processing order.
 */
function fakeBulk(): { session: CrmSession; calls: string[] } {
  const calls: string[] = [];
  let uploaded: string[][] = [];
  const session: CrmSession = {
    connectionId: 'c1',
    baseUrl: 'https://sf.test',
    async send(request) {
      const path = new URL(request.url).pathname;
      calls.push(`${request.method} ${path.replace(/^\/services\/data\/v62\.0\/jobs\/ingest/, '')}`);
      if (request.method === 'POST') return answer(200, JSON.stringify({ id: '750J', state: 'Open' }));
      if (request.method === 'PUT') {
        // The upload is a CSV stream, pulled as a socket would.
        const body =
          typeof request.body === 'function' ? Buffer.concat(await request.body().toArray()) : request.body;
        uploaded = parse(String(body)) as string[][];
        return answer(201, '');
      }
      if (request.method === 'PATCH')
        return answer(200, JSON.stringify({ id: '750J', state: 'UploadComplete' }));
      if (path.endsWith('/successfulResults/') || path.endsWith('/failedResults/')) {
        const [header, ...rows] = uploaded;
        const ok = path.endsWith('/successfulResults/');
        const out = rows
          .map((cells, i) => ({ cells, i }))
          .filter(({ cells }) => (cells[0] !== '') === ok)
          .reverse()
          .map(({ cells, i }) =>
            ok
              ? [`001J${String(i).padStart(14, '0')}`, 'true', ...cells]
              : ['', 'REQUIRED_FIELD_MISSING:Required fields are missing: [Name]:Name --', ...cells],
          );
        const head = ok ? ['sf__Id', 'sf__Created'] : ['sf__Id', 'sf__Error'];
        const file = Buffer.from(stringify([[...head, ...(header ?? [])], ...out]));
        if (request.read === undefined) return answer(200, file.toString());
        // As a socket hands it over: chunks of 1 000 bytes, cut inside quoted cells and characters.
        const chunks = Array.from({ length: Math.ceil(file.length / 1000) }, (_, i) =>
          file.subarray(i * 1000, (i + 1) * 1000),
        );
        await request.read(Readable.from(chunks));
        return answer(200, '');
      }
      return answer(200, JSON.stringify({ id: '750J', state: 'JobComplete' }));
    },
  };
  return { session, calls };
}

/** The parts of an org a Bulk job uses. */
const orgOf = (session: CrmSession, clock: ManualClock) =>
  ({
    session,
    clock,
    api: `${session.baseUrl}/services/data/v62.0`,
  }) as unknown as Org;

test('bulk results in any order map back to input positions, identical rows each get one result', async () => {
  const { session, calls } = fakeBulk();
  const rows = [
    ['A', '1'],
    ['B', '2'],
    ['A', '1'],
    ['', '3'],
    ['A', '1'],
    ['', '3'],
    ['C', '4'],
  ];
  const clock = new ManualClock();
  const results = await clock.run(
    bulkWrite(orgOf(session, clock), 'insert', 'Account', ['Name', 'Amount'], rows),
  );
  assert.equal(results.length, rows.length);
  // Processing order i → id 001J…i: an identical row may take a twin's id, but never a different row's.
  const ids = results.map((r) => r.id);
  assert.equal(new Set(ids.filter(Boolean)).size, 5);
  results.forEach((r, i) => {
    const failed = rows[i]?.[0] === '';
    assert.equal(r.success, !failed, `row ${i}`);
    if (failed) {
      assert.deepEqual(r.errors, [
        {
          statusCode: 'REQUIRED_FIELD_MISSING',
          message: 'Required fields are missing: [Name]',
          fields: ['Name'],
        },
      ]);
    } else {
      const source = Number(r.id?.slice(4));
      assert.deepEqual(rows[source], rows[i], `row ${i} got the id of an identical row`);
    }
  });
  assert.deepEqual(calls.slice(0, 3), ['POST ', 'PUT /750J/batches', 'PATCH /750J']);
});

test('bulk result files with quoted cells, commas and line ends over many pages: each row matched to its record', async () => {
  const { session } = fakeBulk();
  const rows = Array.from({ length: 450 }, (_, i) => [
    i % 97 === 0 ? '' : `N "${i}", é\nline two`,
    String(i),
  ]);
  const clock = new ManualClock();
  const results = await clock.run(
    bulkWrite(orgOf(session, clock), 'insert', 'Account', ['Name', 'Amount'], rows),
  );
  assert.equal(results.length, rows.length);
  results.forEach((r, i) => {
    assert.equal(r.success, i % 97 !== 0, `row ${i}`);
    if (r.success) assert.equal(Number(r.id?.slice(4)), i, `row ${i} got its own id`);
    else assert.equal(r.errors[0]?.statusCode, 'REQUIRED_FIELD_MISSING');
  });
});

test('a large result file of characters outside the BMP is matched row by row', async () => {
  const { session } = fakeBulk();
  // Rows of 😀 (two UTF-16 units each), some shifted by one unit.
  const rows = Array.from({ length: 40 }, (_, i) => [
    `${i % 3 === 0 ? 'a' : ''}${'😀'.repeat(3_001 + i)}`,
    String(i),
  ]);
  const clock = new ManualClock();
  const results = await clock.run(
    bulkWrite(orgOf(session, clock), 'insert', 'Account', ['Name', 'Amount'], rows),
  );
  results.forEach((r, i) => {
    assert.equal(r.success, true, `row ${i}`);
    assert.equal(Number(r.id?.slice(4)), i, `row ${i} got its own id`);
  });
});
