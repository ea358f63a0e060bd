import { OrgError } from './dml.ts';
import { buildField, type FieldSpec } from './fields.ts';
import type { ObjectMeta, Schema } from './meta.ts';
import type { ChildRelationship, FieldDescribe, SObjectDescribe } from './types.ts';

const API_NAME = /^[A-Za-z][A-Za-z0-9]*(_[A-Za-z0-9]+)*__c$/;

/** The child relationship a lookup field gives its parent (`Invoices__r` on Account for `Invoice__c.Account__c`). */
export function childRelationshipFor(child: SObjectDescribe, field: FieldDescribe): ChildRelationship {
  const plural = String(child.labelPlural).replace(/[^A-Za-z0-9]/g, '');
  return {
    cascadeDelete: field.cascadeDelete,
    childSObject: child.name,
    deprecatedAndHidden: false,
    field: field.name,
    junctionIdListNames: [],
    junctionReferenceTo: [],
    relationshipName: child.custom || field.custom ? `${plural}__r` : plural,
    restrictedDelete: field.restrictedDelete,
  };
}

/** Adds a child relationship on each parent a reference field points to. */
export function linkParents(schema: Schema, child: ObjectMeta, field: FieldDescribe): void {
  if (field.type !== 'reference' || field.relationshipName === null) return;
  for (const parentName of field.referenceTo) {
    schema.get(parentName)?.addChildRelationship(childRelationshipFor(child.describe, field));
  }
}

/** A custom field added at run time (Tooling `CustomField` create): checked, completed, and indexed. */
export function addCustomField(schema: Schema, objectName: string, spec: FieldSpec): FieldDescribe {
  const meta = schema.get(objectName);
  if (meta === undefined)
    throw new OrgError('INVALID_TYPE', `sObject type '${objectName}' is not supported.`);
  const name = spec.name.endsWith('__c') ? spec.name : `${spec.name}__c`;
  if (!API_NAME.test(name)) {
    throw new OrgError(
      'INVALID_FIELD',
      `The API name ${name} can only contain underscores and alphanumeric characters. It must be unique, begin with a letter, not include spaces, not end with an underscore, and not contain two consecutive underscores.`,
    );
  }
  if (meta.field(name) !== undefined) {
    throw new OrgError('DUPLICATE_DEVELOPER_NAME', `There is already a field named ${name} on ${meta.name}.`);
  }
  for (const to of spec.referenceTo ?? []) {
    if (schema.get(to) === undefined)
      throw new OrgError('INVALID_TYPE', `sObject type '${to}' is not supported.`);
  }
  const relationshipName =
    spec.type === 'reference'
      ? (spec.relationshipName ?? name.replace(/__c$/, '__r'))
      : (spec.relationshipName ?? null);
  const field = buildField({ ...spec, name, custom: true, relationshipName });
  meta.addField(field);
  linkParents(schema, meta, field);
  schema.touch();
  return field;
}
