import { createRng } from '../../shared/index.ts';
import { formatDateTime, type Org } from '../org/index.ts';

/** Deterministic seed data: the same ids, names and dates on every start. */
const FIRST = [
  'Ada',
  'Grace',
  'Alan',
  'Linus',
  'Margaret',
  'Ken',
  'Barbara',
  'Dennis',
  'Frances',
  'Edsger',
  'Radia',
  'Tim',
  'Hedy',
  'John',
  'Katherine',
  'Guido',
  'Sophie',
  'Yukihiro',
  'Anita',
  'Brian',
];
const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Torvalds',
  'Hamilton',
  'Thompson',
  'Liskov',
  'Ritchie',
  'Allen',
  'Dijkstra',
  'Perlman',
  'Berners-Lee',
  'Lamarr',
  'McCarthy',
  'Johnson',
  'van Rossum',
  'Wilson',
  'Matsumoto',
  'Borg',
  'Kernighan',
];
const COMPANY_A = [
  'Acme',
  'Globex',
  'Initech',
  'Umbrella',
  'Stark',
  'Wayne',
  'Wonka',
  'Tyrell',
  'Cyberdyne',
  'Soylent',
  'Hooli',
  'Vandelay',
  'Oscorp',
  'Aperture',
  'Massive',
  'Gringotts',
  'Monarch',
  'Nakatomi',
  'Dunder',
  'Pied Piper',
];
const COMPANY_B = ['Corp', 'Industries', 'Labs', 'Systems', 'Holdings', 'Group'];
const INDUSTRIES = [
  'Agriculture',
  'Banking',
  'Biotechnology',
  'Consulting',
  'Education',
  'Electronics',
  'Energy',
  'Engineering',
  'Finance',
  'Healthcare',
  'Insurance',
  'Manufacturing',
  'Media',
  'Retail',
  'Technology',
  'Telecommunications',
  'Transportation',
];
const ACCOUNT_TYPES = [
  'Prospect',
  'Customer - Direct',
  'Customer - Channel',
  'Channel Partner / Reseller',
  'Technology Partner',
];
const CITIES: Array<[string, string, string]> = [
  ['Paris', 'France', 'Île-de-France'],
  ['London', 'United Kingdom', 'England'],
  ['Berlin', 'Germany', 'Berlin'],
  ['San Francisco', 'USA', 'CA'],
  ['New York', 'USA', 'NY'],
  ['Austin', 'USA', 'TX'],
  ['Lyon', 'France', 'Auvergne-Rhône-Alpes'],
  ['Madrid', 'Spain', 'Madrid'],
  ['Toronto', 'Canada', 'ON'],
  ['Sydney', 'Australia', 'NSW'],
];
const TITLES = [
  'CEO',
  'CTO',
  'VP Sales',
  'Head of IT',
  'Procurement Manager',
  'Engineer',
  'Office Manager',
  'CFO',
  'Marketing Director',
  'Analyst',
];
const LEAD_STATUS = [
  'Open - Not Contacted',
  'Working - Contacted',
  'Closed - Converted',
  'Closed - Not Converted',
];
const LEAD_SOURCES = ['Web', 'Phone Inquiry', 'Partner Referral', 'Purchased List', 'Other'];
const STAGES: Array<[string, number]> = [
  ['Prospecting', 10],
  ['Qualification', 20],
  ['Needs Analysis', 20],
  ['Value Proposition', 50],
  ['Proposal/Price Quote', 75],
  ['Negotiation/Review', 90],
  ['Closed Won', 100],
  ['Closed Lost', 0],
];
const CASE_SUBJECTS = [
  'Cannot log in',
  'Invoice incorrect',
  'Delivery delayed',
  'Feature request',
  'Integration failing',
  'Password reset',
  'Data export needed',
  'Billing address change',
];

const BASE = Date.UTC(2024, 0, 1);
const DAY = 86_400_000;
const pad = (n: number, w: number) => String(n).padStart(w, '0');
const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '');

export interface SeedResult {
  adminUserId: string;
  standardUserId: string;
}

export function seedRecords(org: Org): SeedResult {
  const rng = createRng(20240101);
  const when = (maxDays: number) => new Date(BASE + rng.int(maxDays) * DAY + rng.int(DAY / 1000) * 1000);
  const t0 = new Date(BASE);

  // Setup objects first: the admin user owns and creates everything else.
  const adminProfile = org.load(
    'Profile',
    {
      Name: 'System Administrator',
      UserType: 'Standard',
      PermissionsApiEnabled: true,
      PermissionsModifyAllData: true,
      PermissionsViewSetup: true,
    },
    t0,
  );
  const standardProfile = org.load(
    'Profile',
    { Name: 'Standard User', UserType: 'Standard', PermissionsApiEnabled: true },
    t0,
  );
  const readOnlyProfile = org.load(
    'Profile',
    { Name: 'Read Only', UserType: 'Standard', PermissionsApiEnabled: true },
    t0,
  );
  const user = (first: string, last: string, profileId: string) =>
    org.load(
      'User',
      {
        Username: `${slug(first)}.${slug(last)}@crm-proxy.sandbox`,
        FirstName: first,
        LastName: last,
        Email: `${slug(first)}.${slug(last)}@crm-proxy.sandbox`,
        Alias: `${slug(first).slice(0, 1)}${slug(last).slice(0, 4)}`,
        CommunityNickname: `${slug(first)}.${slug(last)}`,
        IsActive: true,
        TimeZoneSidKey: 'Europe/London',
        LocaleSidKey: 'en_GB',
        EmailEncodingKey: 'UTF-8',
        LanguageLocaleKey: 'en_US',
        ProfileId: profileId,
        UserType: 'Standard',
        CompanyName: 'crm-proxy',
      },
      t0,
    );
  const adminUserId = user('Sandbox', 'Admin', adminProfile);
  org.adminUserId = adminUserId;
  const standardUserId = user('Sam', 'Seller', standardProfile);
  // Records loaded before the admin existed point their audit fields at the admin too.
  for (const name of ['Profile', 'User']) {
    const meta = org.object(name);
    if (meta === undefined) continue;
    const table = org.table(meta);
    for (const rec of [...table.rows.values()])
      table.put({ ...rec, CreatedById: adminUserId, LastModifiedById: adminUserId });
  }
  const owners = [
    adminUserId,
    standardUserId,
    user('Rita', 'Reader', readOnlyProfile),
    user('Omar', 'Owens', standardProfile),
  ];

  const permissionSets: string[] = [];
  for (const profileId of [adminProfile, standardProfile, readOnlyProfile]) {
    permissionSets.push(
      org.load(
        'PermissionSet',
        {
          Name: `X${profileId.slice(0, 15)}`,
          Label: profileId.slice(0, 15),
          ProfileId: profileId,
          IsOwnedByProfile: true,
          IsCustom: false,
          PermissionsApiEnabled: true,
        },
        t0,
      ),
    );
  }
  org.load(
    'PermissionSet',
    {
      Name: 'Sales_Operations',
      Label: 'Sales Operations',
      Description: 'Extra access for the sales operations team',
      IsOwnedByProfile: false,
      IsCustom: true,
      PermissionsApiEnabled: true,
    },
    t0,
  );
  const customFields: Array<[string, string]> = [['Account', 'External_Id__c']];
  for (const f of org.object('Invoice__c')?.fields ?? [])
    if (f.custom && f.permissionable) customFields.push(['Invoice__c', f.name]);
  for (const [i, ps] of permissionSets.entries()) {
    for (const [sobject, field] of customFields) {
      org.load(
        'FieldPermissions',
        {
          ParentId: ps,
          SobjectType: sobject,
          Field: `${sobject}.${field}`,
          PermissionsRead: true,
          PermissionsEdit: i < 2,
        },
        t0,
      );
    }
  }

  const campaigns: string[] = [];
  for (const [i, name] of [
    'Spring Webinar',
    'Trade Show Paris',
    'Partner Summit',
    'Newsletter Q2',
    'Customer Conference',
  ].entries()) {
    campaigns.push(
      org.load(
        'Campaign',
        {
          Name: name,
          IsActive: i < 3,
          Status: i < 3 ? 'In Progress' : 'Completed',
          Type: i === 1 ? 'Trade Show' : 'Email',
        },
        when(60),
      ),
    );
  }

  const accounts: string[] = [];
  for (let i = 1; i <= 120; i++) {
    const name = `${COMPANY_A[(i - 1) % COMPANY_A.length]} ${COMPANY_B[Math.floor((i - 1) / COMPANY_A.length) % COMPANY_B.length]}`;
    const [city, country, state] = rng.pick(CITIES);
    const employees = 5 + rng.int(20000);
    accounts.push(
      org.load(
        'Account',
        {
          Name: name,
          External_Id__c: `ACC-${pad(i, 4)}`,
          AccountNumber: `CD${pad(100000 + i * 37, 6)}`,
          Type: rng.pick(ACCOUNT_TYPES),
          Industry: rng.pick(INDUSTRIES),
          BillingCity: city,
          BillingCountry: country,
          BillingState: state,
          BillingPostalCode: pad(10000 + rng.int(89999), 5),
          Phone: `+1 555 ${pad(rng.int(10000), 4)}`,
          Website: `https://www.${slug(name)}.example`,
          NumberOfEmployees: employees,
          AnnualRevenue: employees * (50000 + rng.int(150000)),
          Rating: rng.pick(['Hot', 'Warm', 'Cold']),
          OwnerId: rng.pick(owners),
        },
        when(300),
        adminUserId,
      ),
    );
  }
  const contacts: string[] = [];
  for (let i = 1; i <= 250; i++) {
    const first = rng.pick(FIRST);
    const last = rng.pick(LAST);
    const accountId = accounts[(i * 7) % accounts.length] ?? null;
    contacts.push(
      org.load(
        'Contact',
        {
          FirstName: first,
          LastName: last,
          Email: `${slug(first)}.${slug(last)}${i}@example.com`,
          Title: rng.pick(TITLES),
          Phone: `+1 555 ${pad(rng.int(10000), 4)}`,
          AccountId: accountId,
          LeadSource: rng.pick(LEAD_SOURCES),
          MailingCity: rng.pick(CITIES)[0],
          OwnerId: rng.pick(owners),
        },
        when(330),
        adminUserId,
      ),
    );
  }
  for (let i = 1; i <= 80; i++) {
    const first = rng.pick(FIRST);
    const last = rng.pick(LAST);
    org.load(
      'Lead',
      {
        FirstName: first,
        LastName: last,
        Company: `${rng.pick(COMPANY_A)} ${rng.pick(COMPANY_B)}`,
        Email: `${slug(first)}.${slug(last)}.lead${i}@example.org`,
        Status: rng.pick(LEAD_STATUS),
        LeadSource: rng.pick(LEAD_SOURCES),
        Industry: rng.pick(INDUSTRIES),
        Rating: rng.pick(['Hot', 'Warm', 'Cold']),
        OwnerId: rng.pick(owners),
      },
      when(330),
      adminUserId,
    );
  }
  for (let i = 1; i <= 100; i++) {
    const [stage, probability] = rng.pick(STAGES);
    const accountId = rng.pick(accounts);
    const amount = (1 + rng.int(500)) * 1000;
    const closed = stage.startsWith('Closed');
    org.load(
      'Opportunity',
      {
        Name: `Deal ${pad(i, 3)} - ${rng.pick(['Renewal', 'Expansion', 'New Business', 'Pilot'])}`,
        AccountId: accountId,
        StageName: stage,
        Probability: probability,
        Amount: amount,
        ExpectedRevenue: (amount * probability) / 100,
        CloseDate: new Date(BASE + (30 + rng.int(400)) * DAY).toISOString().slice(0, 10),
        IsClosed: closed,
        IsWon: stage === 'Closed Won',
        LeadSource: rng.pick(LEAD_SOURCES),
        CampaignId: i % 10 === 0 ? rng.pick(campaigns) : null,
        OwnerId: rng.pick(owners),
        IsPrivate: false,
      },
      when(300),
      adminUserId,
    );
  }
  for (let i = 1; i <= 60; i++) {
    const contactIndex = (i * 11) % contacts.length;
    const status = rng.pick(['New', 'Working', 'Escalated', 'Closed']);
    org.load(
      'Case',
      {
        CaseNumber: pad(1000 + i, 8),
        Subject: rng.pick(CASE_SUBJECTS),
        Status: status,
        IsClosed: status === 'Closed',
        Priority: rng.pick(['High', 'Medium', 'Low']),
        Origin: rng.pick(['Phone', 'Email', 'Web']),
        ContactId: contacts[contactIndex] ?? null,
        AccountId: accounts[(contactIndex * 7) % accounts.length] ?? null,
        IsEscalated: status === 'Escalated',
        OwnerId: rng.pick(owners),
      },
      when(330),
      adminUserId,
    );
  }
  for (let i = 1; i <= 40; i++) {
    const status = rng.pick(['Draft', 'Sent', 'Paid', 'Void']);
    org.load(
      'Invoice__c',
      {
        Name: `INV-${pad(i, 5)}`,
        External_Id__c: `INV-${pad(i, 5)}`,
        Account__c: accounts[i % accounts.length] ?? null,
        Amount__c: (1 + rng.int(2000)) * 12.5,
        Status__c: status,
        Paid__c: status === 'Paid',
        Due_Date__c: new Date(BASE + (15 + rng.int(365)) * DAY).toISOString().slice(0, 10),
      },
      when(330),
      adminUserId,
    );
  }
  seedActivitiesAndProducts(org, { accounts, contacts, owners, adminUserId, when });
  return { adminUserId, standardUserId };
}

/** The standard price book with a few products, and tasks and events on contacts and accounts (Who / What). */
function seedActivitiesAndProducts(
  org: Org,
  s: {
    accounts: string[];
    contacts: string[];
    owners: string[];
    adminUserId: string;
    when: (d: number) => Date;
  },
): void {
  const at = s.when(10);
  const standard = org.load(
    'Pricebook2',
    { Name: 'Standard Price Book', IsActive: true, IsStandard: true, IsArchived: false },
    at,
    s.adminUserId,
  );
  const products: Array<[string, string, string, number]> = [
    ['GenWatt Diesel 10kW', 'GC1020', 'Hardware', 5000],
    ['Installation: Industrial - High', 'IN7080', 'Services', 85000],
    ['SLA: Gold', 'SL9040', 'Services', 20000],
  ];
  for (const [name, code, family, price] of products) {
    const product = org.load(
      'Product2',
      { Name: name, ProductCode: code, Family: family, IsActive: true, IsArchived: false },
      at,
      s.adminUserId,
    );
    org.load(
      'PricebookEntry',
      {
        Name: name,
        Pricebook2Id: standard,
        Product2Id: product,
        UnitPrice: price,
        IsActive: true,
        UseStandardPrice: false,
        ProductCode: code,
        IsArchived: false,
      },
      at,
      s.adminUserId,
    );
  }
  const subjects = ['Call', 'Send Quote', 'Other', 'Send Letter'];
  for (let i = 0; i < 12; i++) {
    const status = i % 3 === 0 ? 'Completed' : 'Not Started';
    org.load(
      'Task',
      {
        Subject: subjects[i % subjects.length] ?? 'Call',
        WhoId: s.contacts[(i * 5) % s.contacts.length] ?? null,
        WhatId: s.accounts[(i * 3) % s.accounts.length] ?? null,
        AccountId: s.accounts[(i * 3) % s.accounts.length] ?? null,
        Status: status,
        IsClosed: status === 'Completed',
        Priority: i % 4 === 0 ? 'High' : 'Normal',
        IsHighPriority: i % 4 === 0,
        ActivityDate: new Date(BASE + (20 + i) * DAY).toISOString().slice(0, 10),
        TaskSubtype: 'Task',
        OwnerId: s.owners[i % s.owners.length] ?? s.adminUserId,
      },
      s.when(300),
      s.adminUserId,
    );
  }
  for (let i = 0; i < 6; i++) {
    const start = BASE + (40 + i) * DAY + 9 * 3600_000;
    org.load(
      'Event',
      {
        Subject: 'Meeting',
        WhoId: s.contacts[(i * 7) % s.contacts.length] ?? null,
        WhatId: s.accounts[(i * 5) % s.accounts.length] ?? null,
        AccountId: s.accounts[(i * 5) % s.accounts.length] ?? null,
        StartDateTime: formatDateTime(new Date(start)),
        EndDateTime: formatDateTime(new Date(start + 3600_000)),
        ActivityDateTime: formatDateTime(new Date(start)),
        ActivityDate: new Date(start).toISOString().slice(0, 10),
        DurationInMinutes: 60,
        ShowAs: 'Busy',
        OwnerId: s.owners[i % s.owners.length] ?? s.adminUserId,
      },
      s.when(300),
      s.adminUserId,
    );
  }
}
