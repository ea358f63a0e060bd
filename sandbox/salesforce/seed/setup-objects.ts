import { type FieldSpec, picklist } from '../org/fields.ts';
import { describeObject } from './objects.ts';

/**
 * Setup objects tools query before anything else (the Salesforce CLI reads `Organization` before
 * every command): read-only through the data API, fields as a Developer Edition org describes them.
 * https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/sforce_api_objects_organization.htm
 */
const ro = { createable: false, updateable: false } as const;
const text = (name: string, label: string, length: number): FieldSpec => ({
  name,
  type: 'string',
  label,
  length,
  ...ro,
});
const flag = (name: string, label: string): FieldSpec => ({ name, type: 'boolean', label, ...ro });

export const ORGANIZATION = describeObject({
  name: 'Organization',
  label: 'Organization',
  labelPlural: 'Organizations',
  keyPrefix: '00D',
  createable: false,
  updateable: false,
  deletable: false,
  fields: [
    { ...text('Name', 'Name', 80), nillable: false },
    text('Division', 'Division', 80),
    { name: 'Street', type: 'textarea', length: 255, ...ro },
    text('City', 'City', 40),
    text('State', 'State/Province', 80),
    text('PostalCode', 'Zip/Postal Code', 20),
    text('Country', 'Country', 80),
    { name: 'Phone', type: 'phone', ...ro },
    text('PrimaryContact', 'Primary Contact', 80),
    text('DefaultLocaleSidKey', 'Locale', 40),
    text('TimeZoneSidKey', 'Time Zone', 40),
    text('LanguageLocaleKey', 'Language', 40),
    text('InstanceName', 'Instance Name', 5),
    flag('IsSandbox', 'Is Sandbox'),
    { name: 'TrialExpirationDate', type: 'datetime', label: 'Trial Expiration Date', ...ro },
    text('NamespacePrefix', 'Namespace Prefix', 15),
    {
      name: 'OrganizationType',
      type: 'picklist',
      label: 'Edition',
      ...ro,
      picklistValues: picklist(['Developer Edition', 'Enterprise Edition', 'Unlimited Edition']),
    },
    text('DefaultCurrencyIsoCode', 'Default Currency ISO Code', 3),
    { name: 'FiscalYearStartMonth', type: 'int', label: 'Fiscal Year Starts In', ...ro },
    flag('UsesStartDateAsFiscalYearName', 'Fiscal Year Name by Start'),
    flag('ReceivesInfoEmails', 'Info Emails'),
  ],
});

export const USER_ROLE = describeObject({
  name: 'UserRole',
  label: 'Role',
  labelPlural: 'Roles',
  keyPrefix: '00E',
  fields: [
    { name: 'Name', type: 'string', length: 80, nillable: false },
    { name: 'DeveloperName', type: 'string', label: 'Developer Name', length: 80, nillable: false },
    {
      name: 'ParentRoleId',
      type: 'reference',
      label: 'Parent Role ID',
      referenceTo: ['UserRole'],
      relationshipName: 'ParentRole',
    },
    { name: 'RollupDescription', type: 'string', label: 'Description', length: 80 },
    {
      name: 'OpportunityAccessForAccountOwner',
      type: 'picklist',
      label: 'Opportunity Access',
      picklistValues: picklist(['None', 'Read', 'Edit']),
    },
    { name: 'PortalType', type: 'picklist', label: 'Portal Type', ...ro, picklistValues: picklist(['None']) },
  ],
});

export const RECORD_TYPE = describeObject({
  name: 'RecordType',
  label: 'Record Type',
  labelPlural: 'Record Types',
  keyPrefix: '012',
  createable: false,
  updateable: false,
  deletable: false,
  fields: [
    { ...text('Name', 'Name', 80), nillable: false },
    { ...text('DeveloperName', 'Record Type Name', 80), nillable: false },
    text('NamespacePrefix', 'Namespace Prefix', 15),
    { name: 'Description', type: 'string', length: 255, ...ro },
    { name: 'SobjectType', type: 'picklist', label: 'SObject Type Name', length: 40, nillable: false, ...ro },
    flag('IsActive', 'Active'),
    flag('IsPersonType', 'Is Person Type'),
  ],
});

/** Setup objects in describe order; the ones an org already has (User, Profile, PermissionSet) live in objects.ts. */
export const SETUP_OBJECTS = [ORGANIZATION, USER_ROLE, RECORD_TYPE];
