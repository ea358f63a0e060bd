// Persistence covers the sandboxes' state structures as a whole: every store of the HubSpot portal
// is kept (a store added later fails here until it can be), and every field a kept store or OAuth
// state declares appears in its `exportState()`, so a new field is not silently dropped on restart.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Portal } from '../../sandbox/hubspot/model/portal.ts';
import { isPersistable, storesOf } from '../../sandbox/shared/persist.ts';

test('every store of the HubSpot portal is persistable, and storesOf keeps each of them', () => {
  const portal = new Portal();
  const stores = Object.entries(portal).filter(([, v]) => typeof v === 'object' && v !== null);
  assert.ok(stores.length >= 6, `found ${stores.map(([k]) => k).join(', ')}`);
  for (const [name, store] of stores)
    assert.ok(isPersistable(store), `portal.${name} has no exportState/importState`);
  const saved = storesOf(portal).exportState() as Record<string, unknown>;
  assert.deepEqual(Object.keys(saved).sort(), stores.map(([k]) => k).sort());
});

/**
 * Fields that hold functions (clocks), start-up settings (the user's password) or what the journal
 * has yet to save (`changes`, `journaled`), not state.
 */
const NOT_STATE = new Set(['clock', 'now', 'seed', 'ttlMs', 'password', 'changes', 'journaled']);
const FILES = [
  'sandbox/hubspot/model/object-types.ts',
  'sandbox/hubspot/model/owners.ts',
  'sandbox/hubspot/model/pipelines.ts',
  'sandbox/hubspot/model/properties.ts',
  'sandbox/hubspot/model/records.ts',
  'sandbox/hubspot/model/associations.ts',
  'sandbox/hubspot/model/audit-log.ts',
  'sandbox/hubspot/oauth/state.ts',
  'sandbox/salesforce/oauth/state.ts',
];

test('each kept store exports every field it declares', () => {
  for (const file of FILES) {
    const source = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
    const fields = [...source.matchAll(/^ {2}(?:readonly )?#(\w+)(?:\s*[:=])/gm)].map((m) => m[1] ?? '');
    const exported = /exportState\(\)[^{]*\{([\s\S]*?)\n {2}\}/.exec(source)?.[1] ?? '';
    assert.notEqual(exported, '', `${file} has no exportState()`);
    assert.ok(fields.length > 0, `${file}: no fields found`);
    for (const field of fields) {
      if (NOT_STATE.has(field)) continue;
      assert.match(exported, new RegExp(`this\\.#${field}\\b`), `${file}: #${field} is not in exportState()`);
    }
  }
});
