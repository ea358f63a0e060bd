import { ApiError } from '../../errors/index.ts';
import { parseJson } from '../client/types.ts';
import { CrmError, crmErrorFromResponse } from '../errors.ts';
import { viaCollections } from './collections.ts';
import { knownName } from './describe.ts';
import { type Org, type OrgHandler, rejected, send } from './org.ts';
import { query, soqlString } from './query.ts';

/** The profiles a new field is opened to (read and edit); every other profile is left as is. */
const FLS_PROFILES = ['System Administrator', 'Standard User'] as const;

const PICKLISTS = new Set(['picklist', 'multiselectpicklist']);

/**
 * Custom fields through the Tooling API (JSON, where the Metadata API needs SOAP), then read and
 * edit access on the two profiles' own permission sets. Describes are dropped after each step: one
 * cached between them would lack the field.
 */
export const addCustomField: OrgHandler<'add_custom_field'> = async (org, input) => {
  const { name, type, metadata } = checkDefinition(input.definition);
  const objectApiName = await knownName(org, input.objectName);
  const fullName = `${objectApiName}.${name}`;
  const created = await createField(org, fullName, { ...metadata, type });
  await org.describes.forget(org.session.connectionId);
  await grantFieldAccess(org, objectApiName, fullName);
  await org.describes.forget(org.session.connectionId);
  return {
    data: created ?? {},
    msg: `Custom field ${fullName} created; read and edit access granted to the ${FLS_PROFILES.join(' and ')} profiles.`,
  };
};

async function grantFieldAccess(org: Org, objectApiName: string, field: string): Promise<void> {
  const sets = await query(
    org,
    `SELECT Id, Profile.Name FROM PermissionSet WHERE IsOwnedByProfile = true AND Profile.Name IN (${FLS_PROFILES.map(soqlString).join(', ')})`,
  );
  const records = sets.records.map((s) => ({
    ParentId: s['Id'],
    SobjectType: objectApiName,
    Field: field,
    PermissionsRead: true,
    PermissionsEdit: true,
  }));
  if (records.length === 0) return;
  const message = `${field} was created, but granting field-level security failed; grant it in Setup`;
  const grantFailed = (crmBody: unknown, status?: number) =>
    new CrmError('salesforce', 'crm_error', message, { status, crmBody });
  const results = await viaCollections(org, 'insert', 'FieldPermissions', records).catch((error: unknown) => {
    throw error instanceof CrmError && error.kind === 'crm_error'
      ? grantFailed(error.crmBody, error.status)
      : error;
  });
  const failed = results.filter((r) => !r.success);
  if (failed.length > 0) throw grantFailed(failed, 200);
}

/** The field through the Tooling API; Salesforce's refusal of the definition is a 400 naming it. */
async function createField(
  org: Org,
  fullName: string,
  metadata: Record<string, unknown>,
): Promise<Record<string, unknown> | undefined> {
  const response = await send(org, 'tooling create field', 'tooling.createField', {
    method: 'POST',
    url: `${org.api}/tooling/sobjects/CustomField`,
    json: { FullName: fullName, Metadata: metadata },
    idempotent: false,
  });
  if (response.status === 400) throw rejected(response, 'invalid_field_definition', 'the field definition');
  if (response.status !== 201 && response.status !== 200) {
    throw crmErrorFromResponse('salesforce', response, 'create custom field');
  }
  return parseJson<Record<string, unknown>>(response);
}

/** Checks a definition before anything is sent (400); adds a missing `__c`; other keys go as they are. */
export function checkDefinition(definition: Record<string, unknown>): {
  name: string;
  type: string;
  metadata: Record<string, unknown>;
} {
  const problems: Array<{ path: string; message: string }> = [];
  const { name, type, fieldType: _f, groupName: _g, ...metadata } = definition;
  for (const key of ['name', 'label', 'type'] as const) {
    if (typeof definition[key] !== 'string' || definition[key] === '') {
      problems.push({ path: `/data/${key}`, message: `${key} is required` });
    }
  }
  const lowerType = typeof type === 'string' ? type.toLowerCase() : '';
  if (lowerType === 'text') {
    const length = definition['length'];
    if (typeof length !== 'number' || !Number.isInteger(length) || length < 1 || length > 255) {
      problems.push({
        path: '/data/length',
        message: 'a Text field needs length, a whole number from 1 to 255',
      });
    }
  }
  if (PICKLISTS.has(lowerType)) {
    const valueSet = definition['valueSet'] as Record<string, unknown> | undefined;
    const values = (valueSet?.['valueSetDefinition'] as { value?: unknown } | undefined)?.value;
    const named = typeof valueSet?.['valueSetName'] === 'string';
    if (!named && (!Array.isArray(values) || values.length === 0)) {
      problems.push({
        path: '/data/valueSet',
        message: 'a Picklist needs valueSet.valueSetDefinition.value: [{fullName, default}, …]',
      });
    } else if (
      Array.isArray(values) &&
      values.some((v) => typeof (v as { fullName?: unknown })?.fullName !== 'string')
    ) {
      problems.push({ path: '/data/valueSet', message: 'every picklist value needs a fullName' });
    }
  }
  if (problems.length > 0) {
    throw new ApiError(
      'invalid_field_definition',
      `The field definition is incomplete: ${problems.map((p) => p.message).join('; ')}.`,
      { details: problems },
    );
  }
  return { name: `${String(name).replace(/__c$/i, '')}__c`, type: String(type), metadata };
}
