import { createRng, type Rng } from '../../shared/index.ts';
import type { Portal } from '../model/portal.ts';

const FIRST = [
  'Ada',
  'Grace',
  'Alan',
  'Katherine',
  'Linus',
  'Margaret',
  'Dennis',
  'Barbara',
  'Ken',
  'Frances',
  'Tim',
  'Radia',
];
const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Johnson',
  'Torvalds',
  'Hamilton',
  'Ritchie',
  'Liskov',
  'Thompson',
  'Allen',
  'Berners-Lee',
  'Perlman',
];
const COMPANIES = [
  'Acme',
  'Globex',
  'Initech',
  'Umbrella',
  'Hooli',
  'Stark',
  'Wayne',
  'Wonka',
  'Tyrell',
  'Cyberdyne',
  'Soylent',
  'Vandelay',
];
const CITIES = ['Boston', 'Dublin', 'Berlin', 'Paris', 'Austin', 'Toronto', 'Sydney', 'Tokyo'];
const LIFECYCLE = [
  'subscriber',
  'lead',
  'marketingqualifiedlead',
  'salesqualifiedlead',
  'opportunity',
  'customer',
];
const DEAL_STAGES = [
  'appointmentscheduled',
  'qualifiedtobuy',
  'presentationscheduled',
  'contractsent',
  'closedwon',
  'closedlost',
];
const OWNERS = ['101', '102', '103', '104'];

/** Seed times: one record every 37 minutes from 2025-01-06, with non-zero milliseconds. */
function timeAt(i: number): string {
  return new Date(Date.UTC(2025, 0, 6, 9, 0, 0, 0) + i * 37 * 60_000 + ((i * 131) % 997) + 1).toISOString();
}

const pick = <T>(rng: Rng, items: readonly T[]): T => rng.pick(items);

/** Deterministic realistic records of every type (same ids and values on every start). */
export function seedRecords(portal: Portal): void {
  const rng = createRng(20250106);
  let tick = 0;
  const add = (ref: string, values: Record<string, string>) => {
    const type = portal.types.resolve(ref);
    if (type === undefined) throw new Error(`seed: unknown type ${ref}`);
    portal.records.create(type, values, { at: timeAt(tick++), sourceType: 'IMPORT' });
  };

  for (let i = 0; i < 12; i++) {
    const name = COMPANIES[i]!;
    add('companies', {
      name: `${name} ${i % 2 === 0 ? 'Inc.' : 'Ltd'}`,
      domain: `${name.toLowerCase()}.example.com`,
      city: pick(rng, CITIES),
      industry: pick(rng, ['ACCOUNTING', 'COMPUTER_SOFTWARE', 'FINANCIAL_SERVICES', 'RETAIL']),
      numberofemployees: String(10 + rng.int(5000)),
      annualrevenue: String((1 + rng.int(500)) * 10000),
      hubspot_owner_id: pick(rng, OWNERS),
    });
  }
  for (let i = 0; i < 60; i++) {
    const first = FIRST[i % FIRST.length]!;
    const last = LAST[(i * 5) % LAST.length]!;
    const company = COMPANIES[i % COMPANIES.length]!;
    add('contacts', {
      firstname: first,
      lastname: last,
      email: `${first.toLowerCase()}.${last.toLowerCase()}${i}@${company.toLowerCase()}.example.com`,
      hs_email_domain: `${company.toLowerCase()}.example.com`,
      company: company,
      phone: `+1 617 555 ${String(1000 + i).padStart(4, '0')}`,
      city: pick(rng, CITIES),
      lifecyclestage: pick(rng, LIFECYCLE),
      hubspot_owner_id: pick(rng, OWNERS),
    });
  }
  for (let i = 0; i < 25; i++) {
    const stage = pick(rng, DEAL_STAGES);
    add('deals', {
      dealname: `${COMPANIES[i % COMPANIES.length]} - ${pick(rng, ['Renewal', 'Expansion', 'New licence', 'Pilot'])}`,
      amount: String((1 + rng.int(200)) * 250),
      closedate: new Date(Date.UTC(2025, 2 + (i % 9), 1 + (i % 27), 17, 0, 0, 0)).toISOString(),
      pipeline: 'default',
      dealstage: stage,
      dealtype: pick(rng, ['newbusiness', 'existingbusiness']),
      hubspot_owner_id: pick(rng, OWNERS),
    });
  }
  for (let i = 0; i < 15; i++) {
    add('tickets', {
      subject: `${pick(rng, ['Cannot log in', 'Invoice question', 'Export fails', 'Feature idea'])} #${i + 1}`,
      content: 'Reported through the support form.',
      hs_pipeline: '0',
      hs_pipeline_stage: pick(rng, ['1', '2', '3', '4']),
      hs_ticket_priority: pick(rng, ['LOW', 'MEDIUM', 'HIGH']),
      hs_ticket_category: pick(rng, ['PRODUCT_ISSUE', 'BILLING_ISSUE', 'GENERAL_INQUIRY']),
    });
  }
  const products = [
    'Starter plan',
    'Growth plan',
    'Enterprise plan',
    'Onboarding',
    'Training day',
    'Support add-on',
  ];
  products.forEach((name, i) => {
    add('products', {
      name,
      description: `${name} (annual)`,
      price: String(100 * (i + 1) + 0.5),
      hs_sku: `SKU-${1000 + i}`,
      recurringbillingfrequency: 'annually',
    });
  });
  for (let i = 0; i < 12; i++) {
    const quantity = 1 + rng.int(10);
    const price = 100 * (1 + (i % products.length));
    add('line_items', {
      name: products[i % products.length]!,
      quantity: String(quantity),
      price: String(price),
      amount: String(quantity * price),
    });
  }
  for (let i = 0; i < 5; i++) {
    add('quotes', {
      hs_title: `Quote for ${COMPANIES[i]}`,
      hs_expiration_date: new Date(Date.UTC(2025, 6, 1 + i)).toISOString(),
      hs_status: pick(rng, ['DRAFT', 'APPROVAL_NOT_NEEDED', 'APPROVED']),
      hs_public_url_key: `q${(0x5eed + i * 7919).toString(16)}`,
    });
  }
  for (let i = 0; i < 8; i++) {
    const value = rng.int(11);
    add('feedback_submissions', {
      hs_survey_name: 'Customer NPS',
      hs_survey_type: 'NPS',
      hs_survey_channel: 'EMAIL',
      hs_value: String(value),
      hs_response_group: value >= 9 ? 'PROMOTER' : value >= 7 ? 'PASSIVE' : 'DETRACTOR',
      hs_content: value >= 9 ? 'Great product.' : 'Could be faster.',
    });
  }
  for (let i = 0; i < 4; i++) {
    add('goal_targets', {
      hs_goal_name: `Q${i + 1} revenue`,
      hs_target_amount: String(250000 + i * 50000),
      hs_start_datetime: new Date(Date.UTC(2025, i * 3, 1)).toISOString(),
      hs_end_datetime: new Date(Date.UTC(2025, i * 3 + 3, 1) - 1).toISOString(),
      hs_goal_type: 'revenue',
      hs_status: 'in_progress',
    });
  }
  add('discounts', { hs_label: 'Loyalty 10%', hs_type: 'PERCENT', hs_value: '10', hs_duration: 'FOREVER' });
  add('discounts', { hs_label: 'Launch offer', hs_type: 'FIXED', hs_value: '500', hs_duration: 'ONCE' });
  add('fees', { hs_label: 'Processing fee', hs_type: 'FIXED', hs_value: '25' });
  add('fees', { hs_label: 'Rush delivery', hs_type: 'PERCENT', hs_value: '5' });
  add('taxes', { hs_label: 'VAT', hs_type: 'PERCENT', hs_value: '20' });
  add('taxes', { hs_label: 'Sales tax', hs_type: 'PERCENT', hs_value: '6.25' });
  const makes: [string, string][] = [
    ['Volvo', 'XC40'],
    ['Toyota', 'Corolla'],
    ['Ford', 'Focus'],
    ['Tesla', 'Model 3'],
    ['Skoda', 'Octavia'],
    ['Fiat', '500'],
  ];
  makes.forEach(([make, model], i) => {
    add('p_cars', {
      vin: `1HGCM82633A00${String(4352 + i * 17).padStart(4, '0')}`,
      make,
      model,
      year: String(2015 + i),
      condition: i % 2 === 0 ? 'new' : 'used',
      first_registered: `20${15 + i}-0${1 + (i % 9)}-15`,
    });
  });
}
