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

/** Polymorphic lookups: several parent types, one relationship name (`Who`, `What`, `Parent`). */
const poly = (
  name: string,
  to: string[],
  relationshipName: string,
  extra: Partial<FieldSpec> = {},
): FieldSpec => ({
  name,
  type: 'reference',
  referenceTo: to,
  relationshipName,
  polymorphicForeignKey: true,
  ...extra,
});
const WHO = ['Contact', 'Lead'];
const WHAT = [
  'Account',
  'Asset',
  'Campaign',
  'Case',
  'Contract',
  'Opportunity',
  'Order',
  'Product2',
  'Invoice__c',
];
const NOTE_PARENTS = [
  'Account',
  'Asset',
  'Contact',
  'Contract',
  'Lead',
  'Opportunity',
  'Order',
  'Product2',
  'Case',
  'Invoice__c',
];

export const TASK = describeObject({
  name: 'Task',
  label: 'Task',
  labelPlural: 'Tasks',
  keyPrefix: '00T',
  fields: [
    poly('WhoId', WHO, 'Who', { label: 'Name ID' }),
    poly('WhatId', WHAT, 'What', { label: 'Related To ID' }),
    {
      name: 'Subject',
      type: 'combobox',
      length: 255,
      picklistValues: picklist(['Call', 'Send Letter', 'Send Quote', 'Other']),
    },
    { name: 'ActivityDate', type: 'date', label: 'Due Date Only' },
    {
      name: 'Status',
      type: 'picklist',
      length: 40,
      ...req,
      defaultedOnCreate: true,
      picklistValues: picklist(
        ['Not Started', 'In Progress', 'Completed', 'Waiting on someone else', 'Deferred'],
        'Not Started',
      ),
    },
    {
      name: 'Priority',
      type: 'picklist',
      length: 40,
      ...req,
      defaultedOnCreate: true,
      picklistValues: picklist(['High', 'Normal', 'Low'], 'Normal'),
    },
    { name: 'IsHighPriority', type: 'boolean', label: 'High Priority', ...ro },
    owner,
    { name: 'Description', type: 'textarea', label: 'Comments', length: 32000 },
    ref('AccountId', 'Account', 'Account', { label: 'Account ID', ...ro }),
    { name: 'IsClosed', type: 'boolean', label: 'Closed', ...ro },
    { name: 'Type', type: 'picklist', picklistValues: picklist(['Call', 'Email', 'Meeting', 'Other']) },
    {
      name: 'TaskSubtype',
      type: 'picklist',
      label: 'Task Subtype',
      updateable: false,
      picklistValues: picklist(['Task', 'Email', 'Call']),
    },
    { name: 'CallDurationInSeconds', type: 'int', label: 'Call Duration' },
    { name: 'IsReminderSet', type: 'boolean', label: 'Reminder Set' },
    { name: 'ReminderDateTime', type: 'datetime', label: 'Reminder Date/Time' },
    { name: 'CompletedDateTime', type: 'datetime', label: 'Completed Date/Time', ...ro },
  ],
});

export const EVENT = describeObject({
  name: 'Event',
  label: 'Event',
  labelPlural: 'Events',
  keyPrefix: '00U',
  fields: [
    poly('WhoId', WHO, 'Who', { label: 'Name ID' }),
    poly('WhatId', WHAT, 'What', { label: 'Related To ID' }),
    {
      name: 'Subject',
      type: 'combobox',
      length: 255,
      picklistValues: picklist(['Call', 'Email', 'Meeting', 'Send Letter/Quote', 'Other']),
    },
    { name: 'Location', type: 'string', length: 255 },
    { name: 'IsAllDayEvent', type: 'boolean', label: 'All-Day Event' },
    { name: 'ActivityDateTime', type: 'datetime', label: 'Due Date Time' },
    { name: 'ActivityDate', type: 'date', label: 'Due Date Only' },
    { name: 'DurationInMinutes', type: 'int', label: 'Duration' },
    { name: 'StartDateTime', type: 'datetime', label: 'Start Date Time' },
    { name: 'EndDateTime', type: 'datetime', label: 'End Date Time' },
    { name: 'Description', type: 'textarea', length: 32000 },
    ref('AccountId', 'Account', 'Account', { label: 'Account ID', ...ro }),
    owner,
    { name: 'Type', type: 'picklist', picklistValues: picklist(['Call', 'Email', 'Meeting', 'Other']) },
    { name: 'IsPrivate', type: 'boolean', label: 'Private' },
    {
      name: 'ShowAs',
      type: 'picklist',
      label: 'Show Time As',
      defaultedOnCreate: true,
      picklistValues: picklist(['Busy', 'OutOfOffice', 'Free'], 'Busy'),
    },
    { name: 'IsReminderSet', type: 'boolean', label: 'Reminder Set' },
    { name: 'ReminderDateTime', type: 'datetime', label: 'Reminder Date/Time' },
  ],
});

/**
 * ActivityHistory / OpenActivity: not objects of the org's schema (no table, no top-level query,
 * no describe of their own here), only the rows of the `ActivityHistories` and `OpenActivities`
 * child relationships, built from Task and Event (`query/activities.ts`). Fields as the object
 * reference lists them, all read-only.
 */
export function describeActivityView(name: string): SObjectDescribe {
  const label = name === 'ActivityHistory' ? 'Activity History' : 'Open Activity';
  const d = describeObject({
    name,
    label,
    labelPlural: name === 'ActivityHistory' ? 'Activity Histories' : 'Open Activities',
    keyPrefix: '',
    createable: false,
    updateable: false,
    deletable: false,
    fields: [
      ref('AccountId', 'Account', 'Account', { label: 'Account ID', ...ro }),
      poly('WhoId', WHO, 'Who', { label: 'Name ID', ...ro }),
      poly('WhatId', WHAT, 'What', { label: 'Related To ID', ...ro }),
      { name: 'Subject', type: 'string', length: 255, ...ro },
      { name: 'IsTask', type: 'boolean', label: 'Task', ...ro },
      { name: 'ActivityDate', type: 'date', label: 'Due Date Only', ...ro },
      { name: 'ActivityDateTime', type: 'datetime', label: 'Due Date Time', ...ro },
      { name: 'StartDateTime', type: 'datetime', label: 'Start Date Time', ...ro },
      { name: 'EndDateTime', type: 'datetime', label: 'End Date Time', ...ro },
      { name: 'DurationInMinutes', type: 'int', label: 'Duration', ...ro },
      { name: 'Location', type: 'string', length: 255, ...ro },
      { name: 'IsAllDayEvent', type: 'boolean', label: 'All-Day Event', ...ro },
      { name: 'Status', type: 'string', length: 40, ...ro },
      { name: 'Priority', type: 'string', length: 40, ...ro },
      { name: 'IsHighPriority', type: 'boolean', label: 'High Priority', ...ro },
      { name: 'IsClosed', type: 'boolean', label: 'Closed', ...ro },
      { name: 'ActivityType', type: 'string', label: 'Activity Type', length: 40, ...ro },
      { name: 'ActivitySubtype', type: 'string', label: 'Activity Subtype', length: 40, ...ro },
      { ...owner, ...ro },
      { name: 'Description', type: 'textarea', label: 'Comments', length: 32000, ...ro },
      { name: 'CallDurationInSeconds', type: 'int', label: 'Call Duration', ...ro },
      { name: 'IsReminderSet', type: 'boolean', label: 'Reminder Set', ...ro },
      { name: 'ReminderDateTime', type: 'datetime', label: 'Reminder Date/Time', ...ro },
    ],
  });
  return { ...d, queryable: false, layoutable: false, searchable: false, replicateable: false };
}

export const NOTE = describeObject({
  name: 'Note',
  label: 'Note',
  labelPlural: 'Notes',
  keyPrefix: '002',
  fields: [
    poly('ParentId', NOTE_PARENTS, 'Parent', { label: 'Parent ID', ...req, updateable: false }),
    { name: 'Title', type: 'string', length: 255, ...req },
    { name: 'IsPrivate', type: 'boolean', label: 'Private' },
    { name: 'Body', type: 'textarea', length: 32000 },
    owner,
  ],
});

export const ATTACHMENT = describeObject({
  name: 'Attachment',
  label: 'Attachment',
  labelPlural: 'Attachments',
  keyPrefix: '00P',
  fields: [
    poly('ParentId', NOTE_PARENTS, 'Parent', { label: 'Parent ID', ...req, updateable: false }),
    { name: 'Name', type: 'string', label: 'File Name', length: 255, ...req },
    { name: 'IsPrivate', type: 'boolean', label: 'Private' },
    { name: 'ContentType', type: 'string', label: 'Content Type', length: 120 },
    { name: 'BodyLength', type: 'int', label: 'Body Length', ...ro },
    { name: 'Body', type: 'base64', ...req },
    owner,
    { name: 'Description', type: 'textarea', length: 500 },
  ],
});

export const CONTENT_VERSION = describeObject({
  name: 'ContentVersion',
  label: 'Content Version',
  labelPlural: 'Content Versions',
  keyPrefix: '068',
  fields: [
    ref('ContentDocumentId', 'ContentDocument', 'ContentDocument', { label: 'ContentDocument ID', ...ro }),
    { name: 'IsLatest', type: 'boolean', label: 'Is Latest', ...ro },
    { name: 'ContentUrl', type: 'url', label: 'Content URL', length: 1300 },
    { name: 'VersionNumber', type: 'string', label: 'Version Number', length: 20, ...ro },
    // Defaulted from PathOnClient when left out.
    { name: 'Title', type: 'string', length: 255, ...req, defaultedOnCreate: true },
    { name: 'Description', type: 'textarea', length: 1000 },
    { name: 'ReasonForChange', type: 'string', label: 'Reason For Change', length: 1000 },
    { name: 'PathOnClient', type: 'string', label: 'Path On Client', length: 500, updateable: false },
    { name: 'VersionData', type: 'base64', label: 'Version Data' },
    { name: 'ContentSize', type: 'int', label: 'Size', ...ro },
    { name: 'FileType', type: 'string', label: 'File Type', length: 20, ...ro },
    { name: 'FileExtension', type: 'string', label: 'File Extension', length: 40, ...ro },
    {
      name: 'ContentLocation',
      type: 'picklist',
      label: 'Content Location',
      defaultedOnCreate: true,
      updateable: false,
      picklistValues: picklist(['S', 'E', 'L'], 'S'),
    },
    poly('FirstPublishLocationId', NOTE_PARENTS, 'FirstPublishLocation', {
      label: 'First Publish Location ID',
      updateable: false,
    }),
    owner,
  ],
});

export const PRODUCT2 = describeObject({
  name: 'Product2',
  label: 'Product',
  labelPlural: 'Products',
  keyPrefix: '01t',
  fields: [
    { name: 'Name', type: 'string', label: 'Product Name', length: 255, ...req },
    { name: 'ProductCode', type: 'string', label: 'Product Code', length: 255 },
    { name: 'Description', type: 'textarea', label: 'Product Description', length: 4000 },
    { name: 'IsActive', type: 'boolean', label: 'Active' },
    {
      name: 'Family',
      type: 'picklist',
      label: 'Product Family',
      picklistValues: picklist(['None', 'Hardware', 'Software', 'Services']),
    },
    {
      name: 'QuantityUnitOfMeasure',
      type: 'picklist',
      label: 'Quantity Unit Of Measure',
      picklistValues: picklist(['Each']),
    },
    { name: 'StockKeepingUnit', type: 'string', label: 'Product SKU', length: 180 },
    { name: 'ExternalId', type: 'string', label: 'External ID', length: 255, idLookup: true },
    { name: 'DisplayUrl', type: 'url', label: 'Display URL', length: 1000 },
    { name: 'IsArchived', type: 'boolean', label: 'Archived', ...ro },
  ],
});

export const PRICEBOOK2 = describeObject({
  name: 'Pricebook2',
  label: 'Price Book',
  labelPlural: 'Price Books',
  keyPrefix: '01s',
  fields: [
    { name: 'Name', type: 'string', label: 'Price Book Name', length: 255, ...req },
    { name: 'IsActive', type: 'boolean', label: 'Active' },
    { name: 'IsArchived', type: 'boolean', label: 'Archived', ...ro },
    { name: 'Description', type: 'string', length: 255 },
    { name: 'IsStandard', type: 'boolean', label: 'Is Standard Price Book', ...ro },
  ],
});

export const PRICEBOOK_ENTRY = describeObject({
  name: 'PricebookEntry',
  label: 'Price Book Entry',
  labelPlural: 'Price Book Entries',
  keyPrefix: '01u',
  fields: [
    { name: 'Name', type: 'string', label: 'Product Name', length: 255, ...ro },
    ref('Pricebook2Id', 'Pricebook2', 'Pricebook2', { label: 'Price Book ID', ...req, updateable: false }),
    ref('Product2Id', 'Product2', 'Product2', { label: 'Product ID', ...req, updateable: false }),
    { name: 'UnitPrice', type: 'currency', label: 'List Price', ...req },
    { name: 'IsActive', type: 'boolean', label: 'Active' },
    { name: 'UseStandardPrice', type: 'boolean', label: 'Use Standard Price' },
    { name: 'ProductCode', type: 'string', label: 'Product Code', length: 255, ...ro },
    { name: 'IsArchived', type: 'boolean', label: 'Archived', ...ro },
  ],
});

export const OPPORTUNITY_LINE_ITEM = describeObject({
  name: 'OpportunityLineItem',
  label: 'Opportunity Product',
  labelPlural: 'Opportunity Product',
  keyPrefix: '00k',
  fields: [
    ref('OpportunityId', 'Opportunity', 'Opportunity', {
      label: 'Opportunity ID',
      ...req,
      updateable: false,
      cascadeDelete: true,
    }),
    { name: 'SortOrder', type: 'int', label: 'Sort Order' },
    ref('PricebookEntryId', 'PricebookEntry', 'PricebookEntry', {
      label: 'Price Book Entry ID',
      updateable: false,
    }),
    ref('Product2Id', 'Product2', 'Product2', { label: 'Product ID', updateable: false }),
    { name: 'ProductCode', type: 'string', label: 'Product Code', length: 255, ...ro },
    { name: 'Name', type: 'string', label: 'Opportunity Product Name', length: 376, ...ro },
    { name: 'Quantity', type: 'double', ...req },
    { name: 'TotalPrice', type: 'currency', label: 'Total Price' },
    { name: 'UnitPrice', type: 'currency', label: 'Sales Price' },
    { name: 'ListPrice', type: 'currency', label: 'List Price', ...ro },
    { name: 'ServiceDate', type: 'date', label: 'Date' },
    { name: 'Description', type: 'string', label: 'Line Description', length: 255 },
    { name: 'Subtotal', type: 'currency', ...ro, calculated: true },
  ],
});

/** Child relationship names that are not the child's plural label (as a real org names them). */
export const CHILD_RELATIONSHIP_NAMES: Record<string, string> = {
  'OpportunityLineItem.OpportunityId': 'OpportunityLineItems',
  'OpportunityLineItem.PricebookEntryId': 'OpportunityLineItems',
  'OpportunityLineItem.Product2Id': 'OpportunityLineItems',
  'PricebookEntry.Pricebook2Id': 'PricebookEntries',
  'PricebookEntry.Product2Id': 'PricebookEntries',
  'ContentVersion.FirstPublishLocationId': '',
};

/** Account's custom external id (users upsert Accounts by one). */
export const ACCOUNT_EXTERNAL_ID = buildField({
  name: 'External_Id__c',
  type: 'string',
  label: 'External Id',
  length: 40,
  externalId: true,
  unique: true,
});

export const AUTHORED = [
  OPPORTUNITY,
  CASE,
  USER,
  PROFILE,
  PERMISSION_SET,
  FIELD_PERMISSIONS,
  INVOICE,
  TASK,
  EVENT,
  NOTE,
  ATTACHMENT,
  CONTENT_VERSION,
  PRODUCT2,
  PRICEBOOK2,
  PRICEBOOK_ENTRY,
  OPPORTUNITY_LINE_ITEM,
];
