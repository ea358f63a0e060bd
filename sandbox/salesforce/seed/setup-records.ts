import type { Org } from '../org/index.ts';

/**
 * The org's own row of `Organization` (its id is the org id the OAuth identity reports) and a
 * small role hierarchy. No record types beyond Master: a fresh Developer Edition org has none.
 */
export function seedSetupRecords(org: Org): void {
  const t0 = new Date(Date.UTC(2024, 0, 1));
  const meta = org.object('Organization');
  if (meta === undefined) return;
  const generated = org.load(
    'Organization',
    {
      Name: 'crm-proxy Sandbox',
      Street: '415 Mission Street',
      City: 'San Francisco',
      State: 'CA',
      PostalCode: '94105',
      Country: 'US',
      Phone: '(415) 555-0100',
      PrimaryContact: 'Sandbox Admin',
      DefaultLocaleSidKey: 'en_US',
      TimeZoneSidKey: 'America/Los_Angeles',
      LanguageLocaleKey: 'en_US',
      InstanceName: 'CS42',
      IsSandbox: false,
      TrialExpirationDate: null,
      NamespacePrefix: null,
      OrganizationType: 'Developer Edition',
      DefaultCurrencyIsoCode: 'USD',
      FiscalYearStartMonth: 1,
      UsesStartDateAsFiscalYearName: false,
      ReceivesInfoEmails: true,
    },
    t0,
  );
  const table = org.table(meta);
  const row = table.get(generated);
  table.remove(generated);
  if (row !== undefined) table.put({ ...row, Id: org.orgId });
  const ceo = org.load(
    'UserRole',
    { Name: 'CEO', DeveloperName: 'CEO', OpportunityAccessForAccountOwner: 'Edit', PortalType: 'None' },
    t0,
  );
  org.load(
    'UserRole',
    {
      Name: 'VP, Sales',
      DeveloperName: 'VPSales',
      ParentRoleId: ceo,
      OpportunityAccessForAccountOwner: 'Edit',
      PortalType: 'None',
    },
    t0,
  );
}
