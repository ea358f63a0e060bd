import { buildField } from '../org/fields.ts';
import type { FieldDescribe, PicklistEntry, SObjectDescribe } from '../org/types.ts';

/**
 * State and Country/Territory Picklists: with them on, Salesforce adds `{prefix}CountryCode` and
 * `{prefix}StateCode` picklists beside each standard address's text fields. The state field is
 * dependent on the country field: each state's `validFor` is a base64 bitmap whose bit i (from the
 * most significant bit of byte 0) marks the country entry at index i. Codes and labels as
 * Salesforce's standard list has them (ISO 3166-1 / 3166-2); a state code may recur under several
 * countries (WA, NT), one entry each.
 */
export interface AddressCountry {
  code: string;
  label: string;
  states: ReadonlyArray<{ code: string; label: string }>;
}

const list = (text: string) =>
  text
    .trim()
    .split(/\s*;\s*/)
    .map((pair) => {
      const [code = '', label = ''] = pair.split('=');
      return { code, label };
    });

/** In label order, as the describe lists them. */
export const ADDRESS_COUNTRIES: readonly AddressCountry[] = [
  {
    code: 'AU',
    label: 'Australia',
    states: list(`ACT=Australian Capital Territory; NSW=New South Wales; NT=Northern Territory;
      QLD=Queensland; SA=South Australia; TAS=Tasmania; VIC=Victoria; WA=Western Australia`),
  },
  {
    code: 'CA',
    label: 'Canada',
    states: list(`AB=Alberta; BC=British Columbia; MB=Manitoba; NB=New Brunswick;
      NL=Newfoundland and Labrador; NT=Northwest Territories; NS=Nova Scotia; NU=Nunavut;
      ON=Ontario; PE=Prince Edward Island; QC=Quebec; SK=Saskatchewan; YT=Yukon`),
  },
  { code: 'FR', label: 'France', states: [] },
  { code: 'DE', label: 'Germany', states: [] },
  { code: 'GB', label: 'United Kingdom', states: [] },
  { code: 'JP', label: 'Japan', states: [] },
  {
    code: 'US',
    label: 'United States',
    states: list(`AL=Alabama; AK=Alaska; AZ=Arizona; AR=Arkansas; CA=California; CO=Colorado;
      CT=Connecticut; DE=Delaware; DC=District of Columbia; FL=Florida; GA=Georgia; HI=Hawaii;
      ID=Idaho; IL=Illinois; IN=Indiana; IA=Iowa; KS=Kansas; KY=Kentucky; LA=Louisiana; ME=Maine;
      MD=Maryland; MA=Massachusetts; MI=Michigan; MN=Minnesota; MS=Mississippi; MO=Missouri;
      MT=Montana; NE=Nebraska; NV=Nevada; NH=New Hampshire; NJ=New Jersey; NM=New Mexico;
      NY=New York; NC=North Carolina; ND=North Dakota; OH=Ohio; OK=Oklahoma; OR=Oregon;
      PA=Pennsylvania; RI=Rhode Island; SC=South Carolina; SD=South Dakota; TN=Tennessee;
      TX=Texas; UT=Utah; VT=Vermont; VA=Virginia; WA=Washington; WV=West Virginia;
      WI=Wisconsin; WY=Wyoming`),
  },
];

/** `validFor` of an entry valid for the controlling entry at `index` alone. */
export function validForIndex(index: number, controllingCount: number): string {
  const bytes = Buffer.alloc(Math.max(1, Math.ceil(controllingCount / 8)));
  bytes[index >> 3] = 0x80 >> (index % 8);
  return bytes.toString('base64');
}

const entry = (value: string, label: string, validFor: string | null): PicklistEntry => ({
  active: true,
  defaultValue: false,
  label,
  validFor,
  value,
});

function codeFields(prefix: string, compound: string): [FieldDescribe, FieldDescribe] {
  const common = {
    type: 'picklist',
    length: 10,
    restrictedPicklist: true,
    compoundFieldName: compound,
  } as const;
  const countries = ADDRESS_COUNTRIES.map((c) => entry(c.code, c.label, null));
  // Both lists in label order, as the describe gives them: states of all countries interleave.
  const states = ADDRESS_COUNTRIES.flatMap((c, i) =>
    c.states.map((s) => entry(s.code, s.label, validForIndex(i, ADDRESS_COUNTRIES.length))),
  ).sort((a, b) => a.label.localeCompare(b.label, 'en'));
  return [
    buildField({
      ...common,
      name: `${prefix}StateCode`,
      label: `${prefix} State/Province Code`,
      controllerName: `${prefix}CountryCode`,
      dependentPicklist: true,
      picklistValues: states,
    }),
    buildField({
      ...common,
      name: `${prefix}CountryCode`,
      label: `${prefix} Country Code`,
      picklistValues: countries,
    }),
  ];
}

/** Adds the code picklists after each address's `{prefix}Country` field (Billing and Shipping). */
export function addAddressPicklists(account: SObjectDescribe): void {
  for (const prefix of ['Billing', 'Shipping']) {
    const at = account.fields.findIndex((f) => f.name === `${prefix}Country`);
    if (at < 0) continue;
    account.fields.splice(at + 1, 0, ...codeFields(prefix, `${prefix}Address`));
  }
}
