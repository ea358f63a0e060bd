import type { Org, RecordError, SRecord } from '../org/index.ts';

const registered = new WeakSet<Org>();

const restricted = (value: string): RecordError => ({
  statusCode: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
  message: `Field Name: bad value for restricted picklist field: ${value}`,
  fields: ['Field'],
});

/**
 * Rules of FieldPermissions writes (object reference): `Field` is `<SobjectType>.<Field>` and must
 * name a field that takes field-level security (not required, not system); edit needs read; one
 * row per permission set and field.
 */
export function fieldPermissionsValidator(org: Org) {
  return (rec: SRecord, op: 'insert' | 'update'): RecordError | null => {
    const field = typeof rec.Field === 'string' ? rec.Field : '';
    const sobject = typeof rec.SobjectType === 'string' ? rec.SobjectType : '';
    const dot = field.indexOf('.');
    const meta = dot < 0 ? undefined : org.schema.get(field.slice(0, dot));
    const f = meta?.field(field.slice(dot + 1));
    if (meta === undefined || f === undefined || !f.permissionable) return restricted(field);
    if (meta.name.toLowerCase() !== sobject.toLowerCase()) {
      return {
        statusCode: 'FIELD_INTEGRITY_EXCEPTION',
        message: `Field Name: the field ${field} does not belong to the Sobject Type ${sobject}`,
        fields: ['Field'],
      };
    }
    if (rec.PermissionsEdit === true && rec.PermissionsRead !== true) {
      return {
        statusCode: 'FIELD_INTEGRITY_EXCEPTION',
        message: 'Permission Read Field is required when Permission Edit Field is enabled',
        fields: ['PermissionsRead'],
      };
    }
    if (op === 'insert') {
      const parent = String(rec.ParentId ?? '');
      const fpMeta = org.schema.get('FieldPermissions');
      if (fpMeta !== undefined) {
        for (const other of org.table(fpMeta).rows.values()) {
          if (other.IsDeleted === true || other.Id === rec.Id) continue;
          if (other.ParentId === parent && String(other.Field).toLowerCase() === field.toLowerCase()) {
            return {
              statusCode: 'DUPLICATE_VALUE',
              message: `duplicate value found: <unknown> duplicates value on record with id: ${String(other.Id)}`,
              fields: [],
            };
          }
        }
      }
    }
    return null;
  };
}

/** Registers the FieldPermissions rules once per org (validators survive `org.reset()`). */
export function registerFieldPermissionRules(org: Org): void {
  if (registered.has(org)) return;
  registered.add(org);
  org.addValidator('FieldPermissions', fieldPermissionsValidator(org));
}
