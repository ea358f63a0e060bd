import { readFileSync } from 'node:fs';
import { addAddressPicklists } from '../seed/address-picklists.ts';
import { ACCOUNT_EXTERNAL_ID } from '../seed/objects.ts';
import type { SObjectDescribe } from './types.ts';

/** Objects whose describe answers were recorded from a real org (`seed/describes/`). */
const RECORDED = ['Account', 'Contact', 'Lead', 'Campaign', 'Topic'];
const recordedText = new Map<string, string>();
function recordedDescribe(name: string): SObjectDescribe {
  let text = recordedText.get(name);
  if (text === undefined) {
    text = readFileSync(new URL(`../seed/describes/${name}.json`, import.meta.url), 'utf8');
    recordedText.set(name, text);
  }
  return JSON.parse(text) as SObjectDescribe;
}

/**
 * Fresh copies of the recorded describes; Account gets the seed's external id field and, with
 * `addressPicklists`, the code picklists of State and Country/Territory Picklists.
 */
export function recordedDescribes(options: { addressPicklists: boolean }): SObjectDescribe[] {
  return RECORDED.map((name) => {
    const d = recordedDescribe(name);
    if (name === 'Account') {
      d.fields.push({ ...ACCOUNT_EXTERNAL_ID });
      if (options.addressPicklists) addAddressPicklists(d);
    }
    return d;
  });
}

/** Describe answers saved from a real org: an array of describes, or `{sobjects: [...]}`. */
export function readSchemaFile(path: string): SObjectDescribe[] {
  const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
  const list = Array.isArray(parsed)
    ? parsed
    : typeof parsed === 'object' && parsed !== null && 'sobjects' in parsed
      ? parsed.sobjects
      : null;
  if (!Array.isArray(list))
    throw new Error(`${path}: expected an array of describe results or {"sobjects": [...]}`);
  return list.filter(
    (d): d is SObjectDescribe =>
      typeof d === 'object' && d !== null && typeof d.name === 'string' && Array.isArray(d.fields),
  );
}
