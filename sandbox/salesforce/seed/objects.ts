import { buildField, type FieldSpec, picklist, systemFields } from '../org/fields.ts';
import type { FieldDescribe, SObjectDescribe } from '../org/types.ts';

/**
 * Objects the recordings do not hold, authored in the shape of the recorded describes (same keys,
 * real field names, types and lengths of a Developer Edition org).
 */
interface ObjectSpec {
  name: string;
  label: string;
  labelPlural: string;
  keyPrefix: string;
  custom?: boolean;
  /** Setup objects (Profile, PermissionSet) are read-only through the data API except where noted. */
  createable?: boolean;
  updateable?: boolean;
  deletable?: boolean;
  fields: FieldSpec[];
}

const ro = { createable: false, updateable: false } as const;
const req = { nillable: false } as const;
const ref = (
  name: string,
  to: string,
  relationshipName: string,
  extra: Partial<FieldSpec> = {},
): FieldSpec => ({
  name,
  type: 'reference',
  referenceTo: [to],
  relationshipName,
  ...extra,
});
const owner = ref('OwnerId', 'User', 'Owner', {
  label: 'Owner ID',
  nillable: false,
  defaultedOnCreate: true,
});

/** A whole describe answer from a spec: Id first, then the fields, then the audit fields. */
export function describeObject(spec: ObjectSpec): SObjectDescribe {
  const id = buildField({ name: 'Id', type: 'id', label: `${spec.label} ID`, ...ro, nillable: false });
  const system = systemFields();
  const isDeleted = system.shift() as FieldDescribe;
  const fields = [id, isDeleted, ...spec.fields.map(buildField), ...system];
  const nameField = fields.find((f) => f.name === 'Name');
  if (nameField !== undefined) {
    nameField.nameField = true;
    nameField.idLookup = true;
  }
  const custom = spec.custom ?? false;
  return {
    actionOverrides: [],
    activateable: false,
    childRelationships: [],
    compactLayoutable: !custom,
    createable: spec.createable ?? true,
    custom,
    customSetting: false,
    deletable: spec.deletable ?? true,
    deprecatedAndHidden: false,
    feedEnabled: false,
    fields,
    hasSubtypes: false,
    isSubtype: false,
    keyPrefix: spec.keyPrefix,
    label: spec.label,
    labelPlural: spec.labelPlural,
    layoutable: true,
    listviewable: null,
    lookupLayoutable: null,
    mergeable: false,
    mruEnabled: true,
    name: spec.name,
    namedLayoutInfos: [],
    networkScopeFieldName: null,
    queryable: true,
    recordTypeInfos: [
      {
        active: true,
        available: true,
        defaultRecordTypeMapping: true,
        master: true,
        name: 'Master',
        recordTypeId: '012000000000000AAA',
        urls: {},
      },
    ],
    replicateable: true,
    retrieveable: true,
    searchLayoutable: true,
    searchable: true,
    sobjectDescribeOption: 'FULL',
    supportedScopes: [{ label: 'All records', name: 'everything' }],
    triggerable: true,
    undeletable: spec.deletable ?? true,
    updateable: spec.updateable ?? true,
    urls: {},
  };
}

const STAGES = [
  'Prospecting',
  'Qualification',
  'Needs Analysis',
  'Value Proposition',
  'Id. Decision Makers',
  'Perception Analysis',
  'Proposal/Price Quote',
  'Negotiation/Review',
  'Closed Won',
  'Closed Lost',
];
const LEAD_SOURCES = ['Web', 'Phone Inquiry', 'Partner Referral', 'Purchased List', 'Other'];

export const OPPORTUNITY = describeObject({
  name: 'Opportunity',
  label: 'Opportunity',
  labelPlural: 'Opportunities',
  keyPrefix: '006',
  fields: [
    ref('AccountId', 'Account', 'Account', { label: 'Account ID' }),
    { name: 'IsPrivate', type: 'boolean', label: 'Private' },
    { name: 'Name', type: 'string', length: 120, ...req },
    { name: 'Description', type: 'textarea', length: 32000 },
    {
      name: 'StageName',
      type: 'picklist',
      label: 'Stage',
      length: 255,
      ...req,
      picklistValues: picklist(STAGES),
    },
    { name: 'Amount', type: 'currency', precision: 18, scale: 2 },
    { name: 'Probability', type: 'percent', label: 'Probability (%)', precision: 3, scale: 0 },
    { name: 'ExpectedRevenue', type: 'currency', label: 'Expected Amount', ...ro, calculated: true },
    { name: 'TotalOpportunityQuantity', type: 'double', label: 'Quantity', precision: 18, scale: 2 },
    { name: 'CloseDate', type: 'date', label: 'Close Date', ...req },
    {
      name: 'Type',
      type: 'picklist',
      label: 'Opportunity Type',
      picklistValues: picklist([
        'Existing Customer - Upgrade',
        'Existing Customer - Replacement',
        'New Customer',
      ]),
    },
    { name: 'NextStep', type: 'string', label: 'Next Step', length: 255 },
    { name: 'LeadSource', type: 'picklist', label: 'Lead Source', picklistValues: picklist(LEAD_SOURCES) },
    { name: 'IsClosed', type: 'boolean', label: 'Closed', ...ro },
    { name: 'IsWon', type: 'boolean', label: 'Won', ...ro },
    {
      name: 'ForecastCategoryName',
      type: 'picklist',
      label: 'Forecast Category',
      picklistValues: picklist(['Omitted', 'Pipeline', 'Best Case', 'Commit', 'Closed']),
    },
    ref('CampaignId', 'Campaign', 'Campaign', { label: 'Campaign ID' }),
    owner,
    { name: 'LastActivityDate', type: 'date', label: 'Last Activity', ...ro },
    { name: 'FiscalYear', type: 'int', label: 'Fiscal Year', ...ro },
  ],
});

export const CASE = describeObject({
  name: 'Case',
  label: 'Case',
  labelPlural: 'Cases',
  keyPrefix: '500',
  fields: [
    {
      name: 'CaseNumber',
      type: 'string',
      label: 'Case Number',
      length: 30,
      ...ro,
      autoNumber: true,
      nillable: false,
    },
    ref('ContactId', 'Contact', 'Contact', { label: 'Contact ID' }),
    ref('AccountId', 'Account', 'Account', { label: 'Account ID' }),
    ref('ParentId', 'Case', 'Parent', { label: 'Parent Case ID' }),
    { name: 'SuppliedName', type: 'string', label: 'Name', length: 80 },
    { name: 'SuppliedEmail', type: 'email', label: 'Email Address' },
    { name: 'SuppliedPhone', type: 'string', label: 'Phone', length: 40 },
    {
      name: 'Type',
      type: 'picklist',
      label: 'Case Type',
      picklistValues: picklist(['Mechanical', 'Electrical', 'Electronic', 'Structural', 'Other']),
    },
    {
      name: 'Status',
      type: 'picklist',
      defaultedOnCreate: true,
      picklistValues: picklist(['New', 'Working', 'Escalated', 'Closed'], 'New'),
    },
    {
      name: 'Origin',
      type: 'picklist',
      label: 'Case Origin',
      picklistValues: picklist(['Phone', 'Email', 'Web']),
    },
    { name: 'Subject', type: 'string', length: 255 },
    {
      name: 'Priority',
      type: 'picklist',
      defaultedOnCreate: true,
      picklistValues: picklist(['High', 'Medium', 'Low'], 'Medium'),
    },
    { name: 'Description', type: 'textarea', length: 32000 },
    { name: 'IsClosed', type: 'boolean', label: 'Closed', ...ro },
    { name: 'ClosedDate', type: 'datetime', label: 'Closed Date', ...ro },
    { name: 'IsEscalated', type: 'boolean', label: 'Escalated' },
    owner,
  ],
});

export const USER = describeObject({
  name: 'User',
  label: 'User',
  labelPlural: 'Users',
  keyPrefix: '005',
  deletable: false,
  fields: [
    { name: 'Username', type: 'string', length: 80, ...req, unique: true, idLookup: true },
    { name: 'LastName', type: 'string', label: 'Last Name', length: 80, ...req },
    { name: 'FirstName', type: 'string', label: 'First Name', length: 40 },
    { name: 'Name', type: 'string', label: 'Full Name', length: 121, ...ro, nillable: false },
    { name: 'CompanyName', type: 'string', label: 'Company Name', length: 80 },
    { name: 'Title', type: 'string', length: 80 },
    { name: 'Department', type: 'string', length: 80 },
    { name: 'Email', type: 'email', length: 128, ...req },
    { name: 'Phone', type: 'phone' },
    { name: 'Alias', type: 'string', length: 8, ...req },
    { name: 'CommunityNickname', type: 'string', label: 'Nickname', length: 40, defaultedOnCreate: true },
    { name: 'IsActive', type: 'boolean', label: 'Active', defaultValue: true },
    {
      name: 'TimeZoneSidKey',
      type: 'picklist',
      label: 'Time Zone',
      length: 40,
      ...req,
      picklistValues: picklist(['Europe/London', 'America/Los_Angeles', 'America/New_York']),
    },
    {
      name: 'LocaleSidKey',
      type: 'picklist',
      label: 'Locale',
      length: 40,
      ...req,
      picklistValues: picklist(['en_GB', 'en_US', 'fr_FR']),
    },
    {
      name: 'EmailEncodingKey',
      type: 'picklist',
      label: 'Email Encoding',
      length: 40,
      ...req,
      picklistValues: picklist(['UTF-8', 'ISO-8859-1']),
    },
    {
      name: 'LanguageLocaleKey',
      type: 'picklist',
      label: 'Language',
      length: 40,
      ...req,
      picklistValues: picklist(['en_US', 'fr', 'de']),
    },
    ref('ProfileId', 'Profile', 'Profile', { label: 'Profile ID', nillable: false }),
    { name: 'UserType', type: 'picklist', label: 'User Type', ...ro, picklistValues: picklist(['Standard']) },
    {
      name: 'FederationIdentifier',
      type: 'string',
      label: 'SAML Federation ID',
      length: 512,
      idLookup: true,
    },
  ],
});

// Users have a second, named layout (the one Salesforce shows on user hovers).
USER.namedLayoutInfos = [{ name: 'UserAlt' }];

export const PROFILE = describeObject({
  name: 'Profile',
  label: 'Profile',
  labelPlural: 'Profiles',
  keyPrefix: '00e',
  createable: false,
  deletable: false,
  fields: [
    { name: 'Name', type: 'string', length: 255, ...req },
    { name: 'UserType', type: 'picklist', label: 'User Type', ...ro, picklistValues: picklist(['Standard']) },
    { name: 'Description', type: 'string', length: 255 },
    { name: 'PermissionsApiEnabled', type: 'boolean', label: 'API Enabled' },
    { name: 'PermissionsModifyAllData', type: 'boolean', label: 'Modify All Data' },
    { name: 'PermissionsViewSetup', type: 'boolean', label: 'View Setup and Configuration' },
  ],
});

export const PERMISSION_SET = describeObject({
  name: 'PermissionSet',
  label: 'Permission Set',
  labelPlural: 'Permission Sets',
  keyPrefix: '0PS',
  fields: [
    { name: 'Name', type: 'string', length: 80, ...req },
    { name: 'Label', type: 'string', length: 80, ...req },
    { name: 'Description', type: 'textarea', length: 255 },
    ref('ProfileId', 'Profile', 'Profile', { label: 'Profile ID', ...ro }),
    { name: 'IsOwnedByProfile', type: 'boolean', label: 'Is Owned By Profile', ...ro },
    { name: 'IsCustom', type: 'boolean', label: 'Custom', ...ro },
    { name: 'NamespacePrefix', type: 'string', label: 'Namespace Prefix', length: 15, ...ro },
    { name: 'PermissionsApiEnabled', type: 'boolean', label: 'API Enabled' },
  ],
});

export const FIELD_PERMISSIONS = describeObject({
  name: 'FieldPermissions',
  label: 'Field Permissions',
  labelPlural: 'Field Permissions',
  keyPrefix: '01k',
  fields: [
    ref('ParentId', 'PermissionSet', 'Parent', { label: 'Parent ID', nillable: false, updateable: false }),
    {
      name: 'SobjectType',
      type: 'picklist',
      label: 'Sobject Type Name',
      length: 40,
      ...req,
      updateable: false,
    },
    { name: 'Field', type: 'string', label: 'Field Name', length: 255, ...req, updateable: false },
    { name: 'PermissionsEdit', type: 'boolean', label: 'Edit Field' },
    { name: 'PermissionsRead', type: 'boolean', label: 'Read Field' },
  ],
});

/** The custom object every sandbox has: invoices with an external id, as users model their billing system. */
export const INVOICE = describeObject({
  name: 'Invoice__c',
  label: 'Invoice',
  labelPlural: 'Invoices',
  keyPrefix: 'a0B',
  custom: true,
  fields: [
    owner,
    { name: 'Name', type: 'string', label: 'Invoice Name', length: 80, ...req, custom: false },
    {
      name: 'External_Id__c',
      type: 'string',
      label: 'External Id',
      length: 40,
      externalId: true,
      unique: true,
    },
    // An external id without the unique flag (a legacy system's reference): several invoices may share one.
    { name: 'Legacy_Ref__c', type: 'string', label: 'Legacy Ref', length: 40, externalId: true },
    ref('Account__c', 'Account', 'Account__r', { label: 'Account' }),
    { name: 'Amount__c', type: 'currency', label: 'Amount', precision: 16, scale: 2 },
    {
      name: 'Status__c',
      type: 'picklist',
      label: 'Status',
      restrictedPicklist: true,
      defaultedOnCreate: true,
      picklistValues: picklist(['Draft', 'Sent', 'Paid', 'Void'], 'Draft'),
    },
    { name: 'Due_Date__c', type: 'date', label: 'Due Date' },
    { name: 'Paid__c', type: 'boolean', label: 'Paid' },
    { name: 'Contact_Email__c', type: 'email', label: 'Contact Email' },
    { name: 'Notes__c', type: 'textarea', label: 'Notes', length: 1000 },
    {
      name: 'Tags__c',
      type: 'multipicklist',
      label: 'Tags',
      restrictedPicklist: true,
      picklistValues: picklist(['Priority', 'Disputed', 'Recurring']),
    },
  ],
});

/** Account's custom external id (users upsert Accounts by one). */
export const ACCOUNT_EXTERNAL_ID = buildField({
  name: 'External_Id__c',
  type: 'string',
  label: 'External Id',
  length: 40,
  externalId: true,
  unique: true,
});

export const AUTHORED = [OPPORTUNITY, CASE, USER, PROFILE, PERMISSION_SET, FIELD_PERMISSIONS, INVOICE];
