import type { Handler } from '../adapter.ts';
import { parseJson } from '../client/types.ts';
import { crmErrorFromResponse } from '../errors.ts';
import type { PerConnectionState } from './connection-state.ts';
import { resolveObject } from './objects.ts';
import { HUBSPOT_PROFILE, STANDARD_OBJECTS } from './profile.ts';

interface SchemaAnswer {
  results?: Array<Record<string, unknown>>;
}

/**
 * Describe for HubSpot, from HubSpot's own answers: the account's object types (the standard ones
 * and its custom objects from the schemas API), or one type with its properties as the properties
 * API gives them (`name`, `label`, `type`, `fieldType`, `options`, …).
 */
export function hubspotDescribe(hs: PerConnectionState): Handler<'describe'> {
  return async ({ session, limiter }, input) => {
    if (input.objectName === undefined) {
      const response = await limiter.run(() =>
        hs.call(session, {
          method: 'GET',
          path: `${HUBSPOT_PROFILE.schemasPath}?archived=false`,
          idempotent: true,
          label: 'hubspot.schemas.list',
        }),
      );
      if (response.status !== 200) throw crmErrorFromResponse('hubspot', response, 'reading object schemas');
      const custom = parseJson<SchemaAnswer>(response)?.results ?? [];
      return {
        objects: [
          ...STANDARD_OBJECTS.map((o) => ({ name: o.path, objectTypeId: o.typeId, custom: false })),
          ...custom.map((s) => ({
            name: s['name'],
            objectTypeId: s['objectTypeId'],
            fullyQualifiedName: s['fullyQualifiedName'],
            labels: s['labels'],
            custom: true,
          })),
        ],
      };
    }
    // Unknown names answer 404 with the supported and custom ones listed (resolveObject).
    const object = await resolveObject(hs, session, input.objectName);
    const response = await limiter.run(() =>
      hs.call(session, {
        method: 'GET',
        path: `/crm/v3/properties/${encodeURIComponent(object.path)}?archived=false`,
        idempotent: true,
        label: 'hubspot.properties.list',
      }),
    );
    if (response.status !== 200) {
      throw crmErrorFromResponse('hubspot', response, `reading the properties of ${object.name}`);
    }
    const properties = parseJson<SchemaAnswer>(response)?.results ?? [];
    return { name: object.name, objectTypeId: object.typeId, custom: object.custom, properties };
  };
}
