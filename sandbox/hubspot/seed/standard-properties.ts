import { OWNER, type PropertySpec } from './property-builder.ts';

/**
 * Built-in properties of the standard types other than contacts (contacts come whole from a live
 * recording, `data/contact-properties.json`). Names, types and field types follow HubSpot's
 * defaults; each list is the common working set, not every internal property.
 * Keyed by object type id; each entry is `[groupName, specs]`.
 */
export const STANDARD_PROPERTIES: Record<string, [group: string, specs: PropertySpec[]][]> = {
  '0-2': [
    [
      'companyinformation',
      [
        ['name', 'Company name', 'string', 'text'],
        ['domain', 'Company Domain Name', 'string', 'text'],
        ['website', 'Website URL', 'string', 'text'],
        ['phone', 'Phone Number', 'string', 'text'],
        ['address', 'Street Address', 'string', 'text'],
        ['city', 'City', 'string', 'text'],
        ['state', 'State/Region', 'string', 'text'],
        ['zip', 'Postal Code', 'string', 'text'],
        ['country', 'Country/Region', 'string', 'text'],
        [
          'industry',
          'Industry',
          'enumeration',
          'select',
          {
            optionValues: [
              'ACCOUNTING',
              'COMPUTER_SOFTWARE',
              'FINANCIAL_SERVICES',
              'HOSPITAL_HEALTH_CARE',
              'RETAIL',
              'TELECOMMUNICATIONS',
            ],
          },
        ],
        [
          'type',
          'Type',
          'enumeration',
          'select',
          { optionValues: ['PROSPECT', 'PARTNER', 'RESELLER', 'VENDOR', 'OTHER'] },
        ],
        ['numberofemployees', 'Number of Employees', 'number', 'number'],
        ['annualrevenue', 'Annual Revenue', 'number', 'number', { showCurrencySymbol: true }],
        ['description', 'Description', 'string', 'textarea'],
        ['founded_year', 'Year Founded', 'string', 'text'],
        ['is_public', 'Is Public', 'bool', 'booleancheckbox'],
        [
          'lifecyclestage',
          'Lifecycle Stage',
          'enumeration',
          'radio',
          {
            optionValues: [
              'subscriber',
              'lead',
              'marketingqualifiedlead',
              'salesqualifiedlead',
              'opportunity',
              'customer',
              'evangelist',
              'other',
            ],
          },
        ],
        ['hubspot_owner_id', 'Company owner', 'enumeration', 'select', OWNER],
        ['facebookfans', 'Facebook Fans', 'number', 'number'],
        ['twitterhandle', 'Twitter Handle', 'string', 'text'],
        [
          'num_associated_contacts',
          'Number of Associated Contacts',
          'number',
          'number',
          { readOnly: true, calculated: true },
        ],
      ],
    ],
  ],
  '0-3': [
    [
      'dealinformation',
      [
        ['dealname', 'Deal Name', 'string', 'text'],
        ['amount', 'Amount', 'number', 'number', { showCurrencySymbol: true }],
        ['closedate', 'Close Date', 'datetime', 'date'],
        ['pipeline', 'Pipeline', 'enumeration', 'select', { optionValues: ['default'] }],
        [
          'dealstage',
          'Deal Stage',
          'enumeration',
          'radio',
          {
            optionValues: [
              'appointmentscheduled',
              'qualifiedtobuy',
              'presentationscheduled',
              'decisionmakerboughtin',
              'contractsent',
              'closedwon',
              'closedlost',
            ],
          },
        ],
        [
          'dealtype',
          'Deal Type',
          'enumeration',
          'radio',
          { optionValues: ['newbusiness', 'existingbusiness'] },
        ],
        ['description', 'Deal Description', 'string', 'textarea'],
        ['hubspot_owner_id', 'Deal owner', 'enumeration', 'select', OWNER],
        ['hs_priority', 'Priority', 'enumeration', 'select', { optionValues: ['low', 'medium', 'high'] }],
        [
          'hs_deal_stage_probability',
          'Deal probability',
          'number',
          'number',
          { readOnly: true, calculated: true },
        ],
        ['hs_is_closed', 'Is Deal Closed?', 'bool', 'booleancheckbox', { readOnly: true, calculated: true }],
        [
          'num_associated_contacts',
          'Number of Associated Contacts',
          'number',
          'number',
          { readOnly: true, calculated: true },
        ],
      ],
    ],
  ],
  '0-5': [
    [
      'ticketinformation',
      [
        ['subject', 'Ticket name', 'string', 'text'],
        ['content', 'Ticket description', 'string', 'textarea'],
        ['hs_pipeline', 'Pipeline', 'enumeration', 'select', { optionValues: ['0'] }],
        [
          'hs_pipeline_stage',
          'Ticket status',
          'enumeration',
          'select',
          { optionValues: ['1', '2', '3', '4'] },
        ],
        [
          'hs_ticket_category',
          'Category',
          'enumeration',
          'checkbox',
          {
            optionValues: ['PRODUCT_ISSUE', 'BILLING_ISSUE', 'FEATURE_REQUEST', 'GENERAL_INQUIRY'],
          },
        ],
        [
          'hs_ticket_priority',
          'Priority',
          'enumeration',
          'select',
          { optionValues: ['LOW', 'MEDIUM', 'HIGH', 'URGENT'] },
        ],
        [
          'source_type',
          'Source',
          'enumeration',
          'select',
          { optionValues: ['CHAT', 'EMAIL', 'FORM', 'PHONE'] },
        ],
        ['hubspot_owner_id', 'Ticket owner', 'enumeration', 'select', OWNER],
        ['closed_date', 'Close date', 'datetime', 'date'],
        ['time_to_close', 'Time to close', 'number', 'number', { readOnly: true, calculated: true }],
      ],
    ],
  ],
  '0-7': [
    [
      'productinformation',
      [
        ['name', 'Name', 'string', 'text'],
        ['description', 'Description', 'string', 'textarea'],
        ['price', 'Unit price', 'number', 'number', { showCurrencySymbol: true }],
        ['hs_sku', 'SKU', 'string', 'text'],
        ['hs_cost_of_goods_sold', 'Unit cost', 'number', 'number', { showCurrencySymbol: true }],
        ['hs_recurring_billing_period', 'Term', 'string', 'text'],
        [
          'recurringbillingfrequency',
          'Billing frequency',
          'enumeration',
          'select',
          {
            optionValues: ['weekly', 'monthly', 'quarterly', 'annually'],
          },
        ],
        [
          'hs_product_type',
          'Product type',
          'enumeration',
          'select',
          { optionValues: ['inventory', 'non_inventory', 'service'] },
        ],
        ['hs_folder_id', 'Folder', 'number', 'number'],
        ['hs_url', 'URL', 'string', 'text'],
      ],
    ],
  ],
  '0-8': [
    [
      'lineiteminformation',
      [
        ['name', 'Name', 'string', 'text'],
        ['description', 'Description', 'string', 'textarea'],
        ['quantity', 'Quantity', 'number', 'number'],
        ['price', 'Unit price', 'number', 'number', { showCurrencySymbol: true }],
        [
          'amount',
          'Net price',
          'number',
          'number',
          { showCurrencySymbol: true, readOnly: true, calculated: true },
        ],
        ['discount', 'Unit discount', 'number', 'number', { showCurrencySymbol: true }],
        ['hs_discount_percentage', 'Discount percentage', 'number', 'number'],
        ['hs_product_id', 'Product ID', 'number', 'number'],
        ['hs_sku', 'SKU', 'string', 'text'],
        [
          'hs_line_item_currency_code',
          'Currency',
          'enumeration',
          'select',
          { optionValues: ['USD', 'EUR', 'GBP'] },
        ],
      ],
    ],
  ],
  '0-14': [
    [
      'quoteinformation',
      [
        ['hs_title', 'Quote name', 'string', 'text'],
        ['hs_expiration_date', 'Expiration date', 'datetime', 'date'],
        [
          'hs_status',
          'Quote approval status',
          'enumeration',
          'select',
          {
            optionValues: ['DRAFT', 'APPROVAL_NOT_NEEDED', 'PENDING_APPROVAL', 'APPROVED', 'REJECTED'],
          },
        ],
        ['hs_public_url_key', 'Public URL key', 'string', 'text', { readOnly: true }],
        [
          'hs_quote_amount',
          'Quote amount',
          'number',
          'number',
          { showCurrencySymbol: true, readOnly: true, calculated: true },
        ],
        ['hs_currency', 'Currency', 'enumeration', 'select', { optionValues: ['USD', 'EUR', 'GBP'] }],
        ['hs_language', 'Language', 'enumeration', 'select', { optionValues: ['en', 'de', 'fr', 'es'] }],
        ['hs_sender_firstname', 'Sender first name', 'string', 'text'],
        ['hs_sender_lastname', 'Sender last name', 'string', 'text'],
        ['hs_sender_email', 'Sender email', 'string', 'text'],
        ['hubspot_owner_id', 'Quote owner', 'enumeration', 'select', OWNER],
      ],
    ],
  ],
  '0-19': [
    [
      'feedbacksubmissioninformation',
      [
        ['hs_content', 'Response', 'string', 'textarea', { readOnly: true }],
        [
          'hs_response_group',
          'Response group',
          'enumeration',
          'select',
          {
            readOnly: true,
            optionValues: ['PROMOTER', 'PASSIVE', 'DETRACTOR'],
          },
        ],
        [
          'hs_survey_channel',
          'Survey channel',
          'enumeration',
          'select',
          { readOnly: true, optionValues: ['EMAIL', 'WEB'] },
        ],
        ['hs_survey_id', 'Survey ID', 'number', 'number', { readOnly: true }],
        ['hs_survey_name', 'Survey name', 'string', 'text', { readOnly: true }],
        [
          'hs_survey_type',
          'Survey type',
          'enumeration',
          'select',
          { readOnly: true, optionValues: ['NPS', 'CSAT', 'CES'] },
        ],
        ['hs_value', 'Rating', 'number', 'number', { readOnly: true }],
        ['hs_submission_name', 'Submission name', 'string', 'text', { readOnly: true }],
        ['hs_contact_id', 'Contact ID', 'number', 'number', { readOnly: true }],
      ],
    ],
  ],
  '0-74': [
    [
      'goal_target_information',
      [
        ['hs_goal_name', 'Goal name', 'string', 'text'],
        ['hs_target_amount', 'Target', 'number', 'number'],
        ['hs_start_datetime', 'Start date', 'datetime', 'date'],
        ['hs_end_datetime', 'End date', 'datetime', 'date'],
        ['hs_created_by_user_id', 'Created by user ID', 'number', 'number', { readOnly: true }],
        [
          'hs_goal_type',
          'Goal type',
          'enumeration',
          'select',
          { optionValues: ['revenue', 'deals_created', 'calls_made'] },
        ],
        [
          'hs_status',
          'Status',
          'enumeration',
          'select',
          { optionValues: ['in_progress', 'achieved', 'missed'] },
        ],
        ['hs_assignee_user_id', 'Assignee user ID', 'number', 'number'],
      ],
    ],
  ],
  '0-84': [
    [
      'discountinformation',
      [
        ['hs_label', 'Label', 'string', 'text'],
        ['hs_type', 'Type', 'enumeration', 'select', { optionValues: ['PERCENT', 'FIXED'] }],
        ['hs_value', 'Value', 'number', 'number'],
        ['hs_duration', 'Duration', 'enumeration', 'select', { optionValues: ['ONCE', 'FOREVER'] }],
        ['hs_sort_order', 'Sort order', 'number', 'number'],
      ],
    ],
  ],
  '0-85': [
    [
      'feeinformation',
      [
        ['hs_label', 'Label', 'string', 'text'],
        ['hs_type', 'Type', 'enumeration', 'select', { optionValues: ['PERCENT', 'FIXED'] }],
        ['hs_value', 'Value', 'number', 'number'],
        ['hs_sort_order', 'Sort order', 'number', 'number'],
      ],
    ],
  ],
  '0-86': [
    [
      'taxinformation',
      [
        ['hs_label', 'Label', 'string', 'text'],
        ['hs_type', 'Type', 'enumeration', 'select', { optionValues: ['PERCENT', 'FIXED'] }],
        ['hs_value', 'Value', 'number', 'number'],
        ['hs_sort_order', 'Sort order', 'number', 'number'],
      ],
    ],
  ],
  '0-46': [
    [
      'engagement',
      [
        ['hs_timestamp', 'Activity date', 'datetime', 'date'],
        ['hs_note_body', 'Note body', 'string', 'html'],
        ['hubspot_owner_id', 'Activity assigned to', 'enumeration', 'select', OWNER],
      ],
    ],
  ],
  '0-48': [
    [
      'engagement',
      [
        ['hs_timestamp', 'Activity date', 'datetime', 'date'],
        ['hs_call_title', 'Call title', 'string', 'text'],
        ['hs_call_body', 'Call notes', 'string', 'html'],
        ['hs_call_duration', 'Call duration', 'number', 'number'],
        [
          'hs_call_direction',
          'Call direction',
          'enumeration',
          'select',
          { optionValues: ['INBOUND', 'OUTBOUND'] },
        ],
        [
          'hs_call_status',
          'Call status',
          'enumeration',
          'select',
          {
            optionValues: [
              'BUSY',
              'CALLING_CRM_USER',
              'CANCELED',
              'COMPLETED',
              'CONNECTING',
              'FAILED',
              'IN_PROGRESS',
              'NO_ANSWER',
              'QUEUED',
              'RINGING',
            ],
          },
        ],
        ['hubspot_owner_id', 'Activity assigned to', 'enumeration', 'select', OWNER],
      ],
    ],
  ],
  '0-49': [
    [
      'engagement',
      [
        ['hs_timestamp', 'Activity date', 'datetime', 'date'],
        ['hs_email_subject', 'Email subject', 'string', 'text'],
        ['hs_email_text', 'Email text', 'string', 'textarea'],
        [
          'hs_email_direction',
          'Email direction',
          'enumeration',
          'select',
          { optionValues: ['EMAIL', 'INCOMING_EMAIL', 'FORWARDED_EMAIL'] },
        ],
        [
          'hs_email_status',
          'Email send status',
          'enumeration',
          'select',
          { optionValues: ['BOUNCED', 'FAILED', 'SCHEDULED', 'SENDING', 'SENT'] },
        ],
        ['hubspot_owner_id', 'Activity assigned to', 'enumeration', 'select', OWNER],
      ],
    ],
  ],
  '0-47': [
    [
      'engagement',
      [
        ['hs_timestamp', 'Activity date', 'datetime', 'date'],
        ['hs_meeting_title', 'Meeting name', 'string', 'text'],
        ['hs_meeting_body', 'Meeting description', 'string', 'html'],
        ['hs_meeting_start_time', 'Start time', 'datetime', 'date'],
        ['hs_meeting_end_time', 'End time', 'datetime', 'date'],
        [
          'hs_meeting_outcome',
          'Meeting outcome',
          'enumeration',
          'select',
          { optionValues: ['SCHEDULED', 'COMPLETED', 'RESCHEDULED', 'NO_SHOW', 'CANCELED'] },
        ],
        ['hubspot_owner_id', 'Activity assigned to', 'enumeration', 'select', OWNER],
      ],
    ],
  ],
  '0-27': [
    [
      'engagement',
      [
        ['hs_timestamp', 'Activity date', 'datetime', 'date'],
        ['hs_task_subject', 'Task title', 'string', 'text'],
        ['hs_task_body', 'Task notes', 'string', 'html'],
        [
          'hs_task_status',
          'Task status',
          'enumeration',
          'select',
          { optionValues: ['NOT_STARTED', 'IN_PROGRESS', 'WAITING', 'COMPLETED', 'DEFERRED'] },
        ],
        [
          'hs_task_priority',
          'Priority',
          'enumeration',
          'select',
          { optionValues: ['NONE', 'LOW', 'MEDIUM', 'HIGH'] },
        ],
        ['hs_task_type', 'Task type', 'enumeration', 'select', { optionValues: ['CALL', 'EMAIL', 'TODO'] }],
        ['hubspot_owner_id', 'Activity assigned to', 'enumeration', 'select', OWNER],
      ],
    ],
  ],
};
