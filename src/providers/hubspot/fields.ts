import { ApiError, type ErrorDetail } from '../../errors/index.ts';
import type { Handler } from '../adapter.ts';
import { parseJson } from '../client/types.ts';
import { crmErrorFromResponse } from '../errors.ts';
import type { PerConnectionState } from './connection-state.ts';
import { resolveObject } from './objects.ts';
import { FIELD_TYPES_BY_TYPE } from './profile.ts';

const REQUIRED = ['name', 'label', 'type', 'fieldType', 'groupName'] as const;

/**
 * Checks before anything reaches HubSpot, so a bad definition is a 400 naming the field: the five
 * required attributes, a `type` HubSpot knows, a `fieldType` that type allows (the list of allowed
 * ones in the answer), options for enumerations and a formula for calculations.
 */
function checkPropertyDefinition(definition: Record<string, unknown>): void {
  const missing = REQUIRED.filter((k) => typeof definition[k] !== 'string' || definition[k] === '');
  if (missing.length > 0) {
    throw invalid(
      `A HubSpot property needs ${REQUIRED.join(', ')}; missing or not a non-empty string: ${missing.join(', ')}.`,
      missing.map((k) => ({ path: `/data/${k}`, message: 'required (non-empty string)' })),
    );
  }
  const type = String(definition['type']);
  const fieldType = String(definition['fieldType']);
  const allowed = Object.hasOwn(FIELD_TYPES_BY_TYPE, type) ? FIELD_TYPES_BY_TYPE[type] : undefined;
  if (allowed === undefined) {
    const types = Object.keys(FIELD_TYPES_BY_TYPE);
    throw invalid(`"${type.slice(0, 50)}" is not a HubSpot property type. Use one of: ${types.join(', ')}.`, [
      { path: '/data/type', value: type.slice(0, 50), allowed_types: types },
    ]);
  }
  if (!allowed.includes(fieldType)) {
    throw invalid(
      `HubSpot refuses fieldType "${fieldType.slice(0, 50)}" for type "${type}". Allowed fieldTypes for ${type}: ${allowed.join(', ')}.`,
      [{ path: '/data/fieldType', type, value: fieldType.slice(0, 50), allowed_field_types: [...allowed] }],
    );
  }
  const options = definition['options'];
  if (type === 'enumeration' && (!Array.isArray(options) || options.length === 0)) {
    throw invalid('An enumeration property needs `options`: a non-empty array of {label, value}.', [
      { path: '/data/options', message: 'required for type enumeration' },
    ]);
  }
  const formula = definition['calculationFormula'];
  if (fieldType === 'calculation_equation' && (typeof formula !== 'string' || formula === '')) {
    throw invalid('fieldType calculation_equation needs a `calculationFormula`.', [
      { path: '/data/calculationFormula', message: 'required for fieldType calculation_equation' },
    ]);
  }
}

/** Creates a property (`POST /crm/v3/properties/{objectType}`) and answers it whole. */
export function hubspotAddCustomField(hs: PerConnectionState): Handler<'add_custom_field'> {
  return async ({ session }, { objectName, definition }) => {
    checkPropertyDefinition(definition);
    const object = await resolveObject(hs, session, objectName);
    const response = await hs.call(session, {
      method: 'POST',
      path: `/crm/v3/properties/${encodeURIComponent(object.path)}`,
      body: definition,
      idempotent: false,
      label: 'hubspot.properties.create',
    });
    if (response.status === 201 || response.status === 200) {
      await hs.propertiesChanged(session.connectionId);
      const data = parseJson<Record<string, unknown>>(response) ?? {};
      return {
        data,
        message: `Property "${String(data['name'] ?? definition['name'])}" created on HubSpot ${object.name}.`,
      };
    }
    const crm = parseJson<{ message?: string }>(response);
    const crmMessage = typeof crm?.message === 'string' ? crm.message : `status ${response.status}`;
    const details = [
      { provider: 'hubspot', status: response.status, crm_error: crm ?? response.text.slice(0, 500) },
    ];
    if (response.status === 409) {
      throw new ApiError(
        'field_already_exists',
        `HubSpot ${object.name} already have a property named "${String(definition['name'])}" (HubSpot: ${crmMessage}). Choose another name.`,
        { details },
      );
    }
    if (response.status === 400) {
      throw new ApiError('invalid_field_definition', `HubSpot refused the property: ${crmMessage}`, {
        details,
      });
    }
    throw crmErrorFromResponse('hubspot', response, 'creating the property');
  };
}

function invalid(message: string, details: ErrorDetail[]): ApiError {
  return new ApiError('invalid_field_definition', message, { details });
}
