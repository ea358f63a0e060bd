import type { ObjectTypeDefinition } from '../model/types.ts';

interface StandardTypeSpec {
  objectTypeId: string;
  name: string;
  singular: string;
  labels: [singular: string, plural: string];
  /** `createdate`/`lastmodifieddate` pair of the type (HubSpot is not uniform here). */
  created: string;
  modified: string;
  defaults: string[];
  query: string[];
  required?: string[];
  primary?: string;
  secondary?: string[];
  extraAliases?: string[];
  readOnly?: boolean;
}

/**
 * HubSpot's standard object types the sandbox serves. Type ids, identity properties and default
 * property sets follow the objects spec's description and the search guide's tables.
 * https://developers.hubspot.com/docs/api-reference/latest/crm/using-object-apis
 */
const SPECS: StandardTypeSpec[] = [
  {
    objectTypeId: '0-1',
    name: 'contacts',
    singular: 'CONTACT',
    labels: ['Contact', 'Contacts'],
    created: 'createdate',
    modified: 'lastmodifieddate',
    defaults: ['firstname', 'lastname', 'email'],
    query: [
      'firstname',
      'lastname',
      'email',
      'phone',
      'hs_additional_emails',
      'fax',
      'mobilephone',
      'company',
    ],
    primary: 'firstname',
    secondary: ['lastname', 'email', 'phone'],
  },
  {
    objectTypeId: '0-2',
    name: 'companies',
    singular: 'COMPANY',
    labels: ['Company', 'Companies'],
    created: 'createdate',
    modified: 'hs_lastmodifieddate',
    defaults: ['name', 'domain'],
    query: ['website', 'phone', 'name', 'domain'],
    primary: 'name',
    secondary: ['domain', 'phone'],
  },
  {
    objectTypeId: '0-3',
    name: 'deals',
    singular: 'DEAL',
    labels: ['Deal', 'Deals'],
    created: 'createdate',
    modified: 'hs_lastmodifieddate',
    defaults: ['dealname', 'amount', 'closedate', 'pipeline', 'dealstage'],
    query: ['dealname', 'pipeline', 'dealstage', 'description', 'dealtype'],
    required: ['dealname', 'pipeline', 'dealstage'],
    primary: 'dealname',
    secondary: ['amount', 'dealstage'],
  },
  {
    objectTypeId: '0-5',
    name: 'tickets',
    singular: 'TICKET',
    labels: ['Ticket', 'Tickets'],
    created: 'createdate',
    modified: 'hs_lastmodifieddate',
    defaults: [
      'content',
      'hs_pipeline',
      'hs_pipeline_stage',
      'hs_ticket_category',
      'hs_ticket_priority',
      'subject',
    ],
    query: ['subject', 'content', 'hs_pipeline_stage'],
    required: ['subject', 'hs_pipeline', 'hs_pipeline_stage'],
    primary: 'subject',
    secondary: ['hs_pipeline_stage'],
  },
  {
    objectTypeId: '0-7',
    name: 'products',
    singular: 'PRODUCT',
    labels: ['Product', 'Products'],
    created: 'createdate',
    modified: 'hs_lastmodifieddate',
    defaults: ['name', 'description', 'price'],
    query: ['name', 'description', 'hs_sku'],
    primary: 'name',
    secondary: ['price'],
  },
  {
    objectTypeId: '0-8',
    name: 'line_items',
    singular: 'LINE_ITEM',
    labels: ['Line item', 'Line items'],
    created: 'createdate',
    modified: 'hs_lastmodifieddate',
    defaults: ['quantity', 'amount', 'price'],
    query: ['name'],
    primary: 'name',
    secondary: ['quantity'],
  },
  {
    objectTypeId: '0-14',
    name: 'quotes',
    singular: 'QUOTE',
    labels: ['Quote', 'Quotes'],
    created: 'hs_createdate',
    modified: 'hs_lastmodifieddate',
    defaults: ['hs_expiration_date', 'hs_public_url_key', 'hs_status', 'hs_title'],
    query: ['hs_title'],
    required: ['hs_title', 'hs_expiration_date'],
    primary: 'hs_title',
  },
  {
    objectTypeId: '0-19',
    name: 'feedback_submissions',
    singular: 'FEEDBACK_SUBMISSION',
    labels: ['Feedback submission', 'Feedback submissions'],
    created: 'hs_createdate',
    modified: 'hs_lastmodifieddate',
    defaults: [],
    query: ['hs_content', 'hs_survey_name'],
    primary: 'hs_submission_name',
    readOnly: true,
  },
  {
    objectTypeId: '0-74',
    name: 'goal_targets',
    singular: 'GOAL_TARGET',
    labels: ['Goal', 'Goals'],
    created: 'hs_createdate',
    modified: 'hs_lastmodifieddate',
    defaults: [],
    query: ['hs_goal_name'],
    primary: 'hs_goal_name',
    extraAliases: ['goals'],
  },
  {
    objectTypeId: '0-84',
    name: 'discounts',
    singular: 'DISCOUNT',
    labels: ['Discount', 'Discounts'],
    created: 'createdate',
    modified: 'hs_lastmodifieddate',
    defaults: [],
    query: ['hs_label'],
    required: ['hs_label', 'hs_type', 'hs_value'],
    primary: 'hs_label',
  },
  {
    objectTypeId: '0-85',
    name: 'fees',
    singular: 'FEE',
    labels: ['Fee', 'Fees'],
    created: 'createdate',
    modified: 'hs_lastmodifieddate',
    defaults: [],
    query: ['hs_label'],
    required: ['hs_label', 'hs_type', 'hs_value'],
    primary: 'hs_label',
  },
  {
    objectTypeId: '0-86',
    name: 'taxes',
    singular: 'TAX',
    labels: ['Tax', 'Taxes'],
    created: 'createdate',
    modified: 'hs_lastmodifieddate',
    defaults: [],
    query: ['hs_label'],
    required: ['hs_label', 'hs_type', 'hs_value'],
    primary: 'hs_label',
  },
];

/** Standard types as live `GET /crm/v3/schemas/CONTACT` shows them (`metaType: HUBSPOT`, epoch dates). */
export function standardTypes(): ObjectTypeDefinition[] {
  return SPECS.map((s) => ({
    objectTypeId: s.objectTypeId,
    id: s.objectTypeId.slice(2),
    name: s.name,
    fullyQualifiedName: s.singular,
    singularName: s.singular,
    labels: { singular: s.labels[0], plural: s.labels[1] },
    metaType: 'HUBSPOT',
    custom: false,
    requiredProperties: s.required ?? [],
    searchableProperties: s.query,
    ...(s.primary !== undefined ? { primaryDisplayProperty: s.primary } : {}),
    secondaryDisplayProperties: s.secondary ?? [],
    associations: [],
    restorable: true,
    archived: false,
    createdAt: '1970-01-01T00:00:00Z',
    updatedAt: '1970-01-01T00:00:00Z',
    createdateProperty: s.created,
    lastModifiedProperty: s.modified,
    defaultProperties: s.defaults,
    queryProperties: s.query,
    readOnly: s.readOnly ?? false,
    // `contact` and `CONTACT` both resolve: matching is case-insensitive.
    aliases: [s.singular, ...(s.extraAliases ?? [])],
  }));
}

export const GROUP_LABELS: Record<string, string> = {
  contactinformation: 'Contact information',
  facebook_ads_properties: 'Facebook Ads properties',
  deal_information: 'Deal information',
  contact_activity: 'Contact activity',
  analyticsinformation: 'Web analytics history',
  emailinformation: 'Email information',
  conversioninformation: 'Conversion information',
  socialmediainformation: 'Social media information',
  sales_properties: 'Sales properties',
  companyinformation: 'Company information',
  dealinformation: 'Deal information',
  ticketinformation: 'Ticket information',
  productinformation: 'Product information',
  lineiteminformation: 'Line item information',
  quoteinformation: 'Quote information',
  feedbacksubmissioninformation: 'Feedback submission information',
  goal_target_information: 'Goal information',
  discountinformation: 'Discount information',
  feeinformation: 'Fee information',
  taxinformation: 'Tax information',
};
