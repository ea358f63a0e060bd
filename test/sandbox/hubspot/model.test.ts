import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Portal } from '../../../sandbox/hubspot/model/portal.ts';
import type { PropertyDefinition } from '../../../sandbox/hubspot/model/types.ts';
import { normalizeValue, validateValues } from '../../../sandbox/hubspot/model/values.ts';

test('standard types resolve by name, upper-case singular and type id; custom types by 2-… and p… names', () => {
  const p = new Portal({ seed: false });
  const expected: [string, string][] = [
    ['contacts', '0-1'],
    ['CONTACT', '0-1'],
    ['companies', '0-2'],
    ['deals', '0-3'],
    ['tickets', '0-5'],
    ['products', '0-7'],
    ['line_items', '0-8'],
    ['quotes', '0-14'],
    ['feedback_submissions', '0-19'],
    ['goal_targets', '0-74'],
    ['goals', '0-74'],
    ['discounts', '0-84'],
    ['fees', '0-85'],
    ['taxes', '0-86'],
    ['p_cars', '2-3604285'],
    [`p${p.portalId}_cars`, '2-3604285'],
  ];
  for (const [ref, id] of expected) assert.equal(p.types.resolve(ref)?.objectTypeId, id, ref);
  assert.equal(p.types.resolve('cars'), undefined);
  assert.equal(p.types.resolve('widgets'), undefined);
});

test('defineObjectType allocates 2-… ids, its group, properties and system properties', () => {
  const p = new Portal({ seed: false });
  const t = p.defineObjectType({
    name: 'boats',
    labels: { singular: 'Boat', plural: 'Boats' },
    properties: [
      { name: 'hull_id', label: 'Hull', hasUniqueValue: true },
      { name: 'length', label: 'Length', type: 'number', fieldType: 'number' },
    ],
    requiredProperties: ['hull_id'],
    associatedObjects: ['0-1'],
  });
  assert.equal(t.objectTypeId, '2-3604286');
  assert.equal(t.fullyQualifiedName, `p${p.portalId}_boats`);
  assert.equal(p.types.resolve('p_boats')?.objectTypeId, t.objectTypeId);
  const hull = p.properties.get(t.objectTypeId, 'hull_id');
  assert.equal(hull?.type, 'string');
  assert.equal(hull?.fieldType, 'text');
  assert.equal(hull?.groupName, 'boats_information');
  assert.equal(hull?.hasUniqueValue, true);
  for (const name of ['hs_object_id', 'hs_createdate', 'hs_lastmodifieddate']) {
    assert.equal(p.properties.get(t.objectTypeId, name)?.hubspotDefined, true, name);
  }
  assert.deepEqual(
    p.properties.listGroups(t.objectTypeId).map((g) => g.name),
    ['boats_information'],
  );
  assert.equal(t.associations.length, 2);
  assert.ok(p.removeObjectType(t.objectTypeId));
  assert.equal(p.types.resolve('p_boats'), undefined);
});

test('property registry: full model on create, duplicate names, update, archive keeps the name taken', () => {
  const p = new Portal({ seed: false });
  const created = p.properties.create(
    '0-1',
    {
      name: 'loyalty_tier',
      label: 'Loyalty',
      type: 'string',
      fieldType: 'text',
      groupName: 'contactinformation',
    },
    '1122334',
  );
  assert.ok(created.ok);
  const prop = created.ok ? created.property : undefined;
  const expectedKeys = [
    'archived',
    'calculated',
    'createdAt',
    'createdUserId',
    'description',
    'displayOrder',
    'externalOptions',
    'fieldType',
    'formField',
    'groupName',
    'hasUniqueValue',
    'hidden',
    'label',
    'modificationMetadata',
    'name',
    'options',
    'type',
    'updatedAt',
    'updatedUserId',
  ];
  assert.deepEqual(Object.keys(prop ?? {}).sort(), expectedKeys);
  assert.deepEqual(prop?.modificationMetadata, {
    archivable: true,
    readOnlyDefinition: false,
    readOnlyValue: false,
  });
  assert.deepEqual(
    p.properties.create(
      '0-1',
      { name: 'loyalty_tier', label: 'x', type: 'string', fieldType: 'text', groupName: 'g' },
      '1',
    ),
    {
      ok: false,
      reason: 'exists',
    },
  );
  assert.equal(p.properties.update('0-1', 'loyalty_tier', { label: 'Tier' })?.label, 'Tier');
  assert.ok(p.properties.archive('0-1', 'loyalty_tier'));
  assert.equal(p.properties.get('0-1', 'loyalty_tier'), undefined);
  assert.equal(p.properties.get('0-1', 'loyalty_tier', { archived: true })?.archived, true);
  assert.ok(p.properties.has('0-1', 'loyalty_tier'));
  assert.ok(p.properties.list('0-1', { archived: true }).some((x) => x.name === 'loyalty_tier'));
  // built-in contact properties come from a live recording
  const email = p.properties.get('0-1', 'email');
  assert.equal(email?.hubspotDefined, true);
  assert.equal(email?.groupName, 'contactinformation');
  assert.ok(p.properties.list('0-1').length > 250);
  const g = p.properties.createGroup('0-1', { name: 'loyalty', label: 'Loyalty' });
  assert.ok(g.ok);
  assert.deepEqual(p.properties.createGroup('0-1', { name: 'loyalty', label: 'Again' }), {
    ok: false,
    reason: 'exists',
  });
  assert.equal(p.properties.updateGroup('0-1', 'loyalty', { displayOrder: 3 })?.displayOrder, 3);
  assert.ok(p.properties.archiveGroup('0-1', 'loyalty'));
  assert.equal(p.properties.getGroup('0-1', 'loyalty'), undefined);
});

test('every standard type has its identity properties defined', () => {
  const p = new Portal({ seed: false });
  for (const t of p.types.list()) {
    for (const name of [
      t.createdateProperty,
      t.lastModifiedProperty,
      'hs_object_id',
      ...t.defaultProperties,
    ]) {
      assert.ok(p.properties.get(t.objectTypeId, name) !== undefined, `${t.name}.${name}`);
    }
  }
});

test('value normalisation follows the property type', () => {
  const def = (
    type: string,
    fieldType: string,
    extra: Partial<PropertyDefinition> = {},
  ): PropertyDefinition => ({
    name: 'p',
    label: 'P',
    type,
    fieldType,
    description: '',
    groupName: 'g',
    options: [],
    ...extra,
  });
  assert.deepEqual(normalizeValue(def('number', 'number'), 12.5), { value: '12.5' });
  assert.equal('error' in normalizeValue(def('number', 'number'), 'abc'), true);
  assert.deepEqual(normalizeValue(def('bool', 'booleancheckbox'), true), { value: 'true' });
  assert.deepEqual(normalizeValue(def('datetime', 'date'), '1427997766000'), {
    value: '2015-04-02T18:02:46.000Z',
  });
  assert.deepEqual(normalizeValue(def('date', 'date'), '1430438400000'), { value: '2015-05-01' });
  assert.deepEqual(normalizeValue(def('date', 'date'), '2015-05-01'), { value: '2015-05-01' });
  // seconds instead of milliseconds: the live message quoted in public write-ups
  assert.deepEqual(normalizeValue(def('date', 'date'), '1570233600'), {
    error: { name: 'p', code: 'INVALID_DATE', message: '1570233600 is at 4:10:33.600 UTC, not midnight!' },
  });
  assert.deepEqual(normalizeValue(def('string', 'text'), ''), { value: '' });
  assert.equal('error' in normalizeValue(def('number', 'number'), ' 12 '), true);
  const opts = [
    { label: 'A', value: 'a', hidden: false },
    { label: 'B', value: 'b', hidden: false },
  ];
  assert.deepEqual(normalizeValue(def('enumeration', 'checkbox', { options: opts }), 'a;b'), {
    value: 'a;b',
  });
  assert.equal('error' in normalizeValue(def('enumeration', 'select', { options: opts }), 'c'), true);
});

test('validateValues reports every bad property and appends multi-select values after a leading ;', () => {
  const p = new Portal({ seed: false });
  const contacts = p.types.resolve('contacts')!;
  const bad = validateValues(p, contacts, { nope: 'x', createdate: '2020-01-01', lifecyclestage: 'bogus' });
  assert.equal(bad.ok, false);
  assert.deepEqual(bad.ok ? [] : bad.errors.map((e) => e.code), [
    'PROPERTY_DOESNT_EXIST',
    'READ_ONLY_VALUE',
    'INVALID_OPTION',
  ]);
  const tickets = p.types.resolve('tickets')!;
  const appended = validateValues(
    p,
    tickets,
    { hs_ticket_category: ';BILLING_ISSUE' },
    { hs_ticket_category: 'PRODUCT_ISSUE' },
  );
  assert.deepEqual(appended, { ok: true, values: { hs_ticket_category: 'PRODUCT_ISSUE;BILLING_ISSUE' } });
});

test('seeding is deterministic and reset returns to it', () => {
  const a = new Portal();
  const b = new Portal();
  // Engagements are not seeded: they start empty, as in a new account.
  const engagements = new Set(['0-46', '0-47', '0-48', '0-49', '0-27']);
  for (const t of a.types.list()) {
    const ra = a.records.list(t.objectTypeId);
    assert.ok(ra.length > 0 || engagements.has(t.objectTypeId), t.name);
    assert.deepEqual(ra, b.records.list(t.objectTypeId), t.name);
  }
  const contacts = a.types.resolve('contacts')!;
  const first = a.records.list('0-1')[0]!;
  a.records.update(contacts, first.id, { firstname: 'Changed' });
  a.records.create(contacts, { email: 'extra@example.com' });
  a.reset();
  assert.deepEqual(a.records.list('0-1'), b.records.list('0-1'));
  assert.ok(a.owners.list().length > 0);
  assert.ok(a.pipelines.hasStage('0-3', 'closedwon', 'default'));
  assert.ok(a.pipelines.hasStage('0-5', '4'));
});

test('deal pipeline and stage values are checked against the pipelines, so new stages become valid', () => {
  const p = new Portal({ seed: false });
  const deals = p.types.resolve('deals')!;
  assert.equal(validateValues(p, deals, { pipeline: 'default', dealstage: 'closedwon' }).ok, true);
  assert.equal(validateValues(p, deals, { pipeline: 'nope' }).ok, false);
  assert.equal(validateValues(p, deals, { dealstage: 'negotiation' }).ok, false);
  const pipeline = p.pipelines.get('0-3', 'default')!;
  const stage = { ...pipeline.stages[0]!, id: 'negotiation', label: 'Negotiation', displayOrder: 7 };
  p.pipelines.put('0-3', { ...pipeline, stages: [...pipeline.stages, stage] });
  assert.deepEqual(validateValues(p, deals, { dealstage: 'negotiation' }), {
    ok: true,
    values: { dealstage: 'negotiation' },
  });
  // a stage must belong to the pipeline named in the same write
  const other = { ...pipeline, id: 'partners', label: 'Partners', stages: [{ ...stage, id: 'signed' }] };
  p.pipelines.put('0-3', other);
  assert.equal(validateValues(p, deals, { pipeline: 'partners', dealstage: 'closedwon' }).ok, false);
  assert.equal(validateValues(p, deals, { pipeline: 'partners', dealstage: 'signed' }).ok, true);
});
