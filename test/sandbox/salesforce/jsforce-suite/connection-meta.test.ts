// Mirrors jsforce's integration file test/connection-meta.test.ts (15 tests): describe caches, recently
// viewed records, updated/deleted windows, identity, limits, tabs and theme. One connection for the
// file, as jsforce's caches (describe$, describeGlobal$$) live on it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Connection } from 'jsforce';
import { connectTo } from '../jsforce-helpers.ts';
import { useSandbox } from '../rest-helpers.ts';

const { sf } = useSandbox();
let cached: Connection | null = null;
const conn = () => {
  cached ??= connectTo(sf());
  return cached;
};
const isObj = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown) => typeof v === 'string';
const dayWindow = () => {
  const end = new Date();
  return { start: new Date(end.getTime() - 24 * 3600_000), end };
};

describe('describe and its cache', () => {
  test('Account describe is cached by describe$ / describe$$, and describe() fetches anew', async () => {
    const so = await conn().sobject('Account').describe();
    assert.equal(so.name, 'Account');
    assert.ok(Array.isArray(so.fields));
    assert.equal(await conn().sobject('Account').describe$(), so);
    assert.equal(conn().sobject('Account').describe$$(), so);
    const fresh = await conn().sobject('Account').describe();
    assert.notEqual(fresh, so);
    assert.equal(fresh.name, 'Account');
  });

  test('describeGlobal lists objects without fields and is cached the same way', async () => {
    const res = await conn().describeGlobal();
    const first = res.sobjects[0] as unknown as Record<string, unknown>;
    assert.ok(str(first.name) && str(first.label));
    assert.equal(first.fields, undefined);
    assert.equal(await conn().describeGlobal$(), res);
    assert.equal(conn().describeGlobal$$(), res);
    const fresh = await conn().describeGlobal();
    assert.notEqual(fresh, res);
    assert.ok(Array.isArray(fresh.sobjects) && str(fresh.sobjects[0]?.name));
  });
});

describe('recent, updated and deleted records', () => {
  test('a FOR VIEW query marks two accounts as viewed', async () => {
    const res = await conn().query('SELECT Id, Name FROM Account ORDER BY CreatedDate DESC LIMIT 2 FOR VIEW');
    assert.equal(res.records.length, 2);
  });

  test('conn.recent(2) lists those accounts with Id, Name and type', async () => {
    const recs = (await conn().recent(2)) as Array<Record<string, unknown>>;
    assert.ok(recs.length > 0 && recs.length <= 2);
    for (const r of recs) {
      assert.ok(str(r.Id) && str(r.Name));
      assert.equal((r.attributes as { type: string }).type, 'Account');
    }
  });

  test("sobject('Account').recent() lists recently viewed accounts", async () => {
    const recs = (await conn().sobject('Account').recent()) as Array<Record<string, unknown>>;
    assert.ok(recs.length > 0);
    for (const r of recs) {
      assert.ok(str(r.Id) && str(r.Name));
      assert.equal((r.attributes as { type: string }).type, 'Account');
    }
  });

  test('create two accounts, rename one and delete the other at once', async () => {
    const [a, b] = await conn()
      .sobject('Account')
      .create([{ Name: 'Quay Bakery' }, { Name: 'Quay Florist' }]);
    const res = await Promise.all([
      conn()
        .sobject('Account')
        .record(a?.id as string)
        .update({ Name: 'Quay Bakery & Co' }),
      conn()
        .sobject('Account')
        .record(b?.id as string)
        .destroy(),
    ]);
    assert.ok(res.every((r) => r.success));
  });

  test('updated(start, end) with Dates lists ids', async () => {
    const { start, end } = dayWindow();
    const res = await conn().sobject('Account').updated(start, end);
    assert.ok(Array.isArray(res.ids));
  });

  test('updated(start, end) with date strings lists ids', async () => {
    const { start, end } = dayWindow();
    const res = await conn().sobject('Account').updated(start.toString(), end.toString());
    assert.ok(Array.isArray(res.ids));
  });

  test('deleted(start, end) with Dates lists deleted records', async () => {
    const { start, end } = dayWindow();
    const res = await conn().sobject('Account').deleted(start, end);
    assert.ok(Array.isArray(res.deletedRecords));
  });

  test('deleted(start, end) with date strings lists deleted records', async () => {
    const { start, end } = dayWindow();
    const res = await conn().sobject('Account').deleted(start.toString(), end.toString());
    assert.ok(Array.isArray(res.deletedRecords));
  });
});

test('identity() gives the https id URL, user, org, email, photos and urls', async () => {
  const res = await conn().identity();
  assert.ok(res.id.startsWith('https://') || res.id.startsWith(sf().url), res.id);
  assert.ok(str(res.user_id) && str(res.organization_id) && str(res.email));
  assert.ok(isObj(res.photos) && isObj(res.urls));
});

describe('limits', () => {
  test('conn.limitInfo carries the API usage from the last answer', () => {
    const usage = conn().limitInfo.apiUsage;
    assert.ok(isObj(usage));
    assert.ok(typeof usage?.used === 'number' && typeof usage.limit === 'number');
    assert.ok((usage?.used ?? 0) > 0 && (usage?.limit ?? 0) >= (usage?.used ?? 0));
  });

  test('limits() reports data storage, file storage and daily API requests', async () => {
    const limits = await conn().limits();
    for (const key of ['DataStorageMB', 'FileStorageMB', 'DailyApiRequests'] as const) {
      assert.ok((limits[key]?.Remaining ?? -1) >= 0, key);
      assert.ok((limits[key]?.Max ?? 0) > 0, key);
    }
  });
});

describe('tabs and theme', () => {
  test('tabs() lists tabs with label, name and url', async () => {
    const tabs = (await conn().tabs()) as Array<Record<string, unknown>>;
    assert.ok(tabs.length > 0);
    for (const tab of tabs) assert.ok(str(tab.label) && str(tab.name) && str(tab.url));
  });

  test('theme() lists theme items with colors and icons', async () => {
    const theme = await conn().theme();
    assert.ok(Array.isArray(theme.themeItems) && theme.themeItems.length > 0);
    for (const item of theme.themeItems as Array<Record<string, unknown>>) {
      assert.ok(str(item.name));
      const colors = (item.colors ?? []) as Array<Record<string, unknown>>;
      for (const c of colors) assert.ok(str(c.color) && str(c.context) && str(c.theme));
      const icons = (item.icons ?? []) as Array<Record<string, unknown>>;
      for (const i of icons) {
        assert.ok(str(i.url) && str(i.contentType));
        assert.ok(typeof i.width === 'number' && typeof i.height === 'number');
      }
    }
  });
});
