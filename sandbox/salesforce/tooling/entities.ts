import { IdFactory } from '../org/ids.ts';
import type { Org } from '../org/index.ts';
import { ObjectMeta } from '../org/meta.ts';
import { Table } from '../org/store.ts';
import type { SRecord } from '../org/types.ts';
import type { QueryHost } from '../query/paths.ts';
import { describeObject } from '../seed/objects.ts';

const text = (name: string, length = 255) => ({ name, type: 'string' as const, length });
const ro = { createable: false, updateable: false };

/** Tooling API entities the emulator serves: their describes (for Tooling SOQL). */
const CUSTOM_FIELD = describeObject({
  name: 'CustomField',
  label: 'Custom Field Definition',
  labelPlural: 'Custom Field Definitions',
  keyPrefix: '00N',
  fields: [
    { ...text('DeveloperName', 40), ...ro },
    { ...text('TableEnumOrId', 40), ...ro },
    { ...text('NamespacePrefix', 15), ...ro },
    { ...text('ManageableState', 40), ...ro },
    { ...text('FullName'), ...ro },
    { ...text('Description', 1000), ...ro },
    { ...text('InlineHelpText', 510), ...ro },
    { name: 'Length', type: 'int', ...ro },
    { ...text('EntityDefinitionId', 18), ...ro },
    { name: 'Metadata', type: 'complexvalue', ...ro },
  ],
});

const CUSTOM_OBJECT = describeObject({
  name: 'CustomObject',
  label: 'Custom Object',
  labelPlural: 'Custom Objects',
  keyPrefix: '01I',
  fields: [
    { ...text('DeveloperName', 40), ...ro },
    { ...text('NamespacePrefix', 15), ...ro },
    { ...text('ManageableState', 40), ...ro },
    { ...text('FullName'), ...ro },
    { ...text('ExternalName'), ...ro },
    { ...text('Description', 1000), ...ro },
    { name: 'Metadata', type: 'complexvalue', ...ro },
  ],
});

const ENTITY_DEFINITION = describeObject({
  name: 'EntityDefinition',
  label: 'Entity Definition',
  labelPlural: 'Entity Definitions',
  keyPrefix: '000',
  fields: [
    { ...text('DurableId'), ...ro },
    { ...text('QualifiedApiName'), ...ro },
    { ...text('DeveloperName', 40), ...ro },
    { ...text('Label'), ...ro },
    { ...text('PluralLabel'), ...ro },
    { ...text('KeyPrefix', 3), ...ro },
    { name: 'IsCustomizable', type: 'boolean', ...ro },
  ],
});

/**
 * The Tooling view of the org's metadata: every custom field and custom object of the schema
 * (seeded or created through Tooling) with a stable id, and the Metadata documents of those
 * created through Tooling. Rows are rebuilt from the schema for each query, so describe and
 * Tooling never disagree.
 */
export class ToolingEntities {
  readonly #ids = new IdFactory(7_000_000);
  #fieldIds = new Map<string, string>();
  #objectIds = new Map<string, string>();
  readonly metadata = new Map<
    string,
    { fullName: string; metadata: Record<string, unknown>; createdById: string; createdDate: string }
  >();

  private readonly org: Org;
  constructor(org: Org) {
    this.org = org;
  }

  reset(): void {
    this.#fieldIds.clear();
    this.#objectIds.clear();
    this.metadata.clear();
    this.#ids.reset();
  }

  fieldId(fullName: string): string {
    const key = fullName.toLowerCase();
    let id = this.#fieldIds.get(key);
    if (id === undefined) {
      id = this.#ids.next('00N');
      this.#fieldIds.set(key, id);
    }
    return id;
  }

  objectId(name: string): string {
    const key = name.toLowerCase();
    let id = this.#objectIds.get(key);
    if (id === undefined) {
      id = this.#ids.next('01I');
      this.#objectIds.set(key, id);
    }
    return id;
  }

  /** `Account` for standard objects, the custom object's `01I` id for custom ones (as Tooling answers). */
  tableEnumOrId(objectName: string, custom: boolean): string {
    return custom ? this.objectId(objectName) : objectName;
  }

  /** A query host over freshly built entity tables. */
  host(): QueryHost {
    const metas = new Map<string, ObjectMeta>();
    const tables = new Map<ObjectMeta, Table>();
    const byId = new Map<string, { table: Table; rec: SRecord }>();
    const add = (describe: typeof CUSTOM_FIELD, rows: SRecord[]) => {
      const meta = new ObjectMeta(structuredClone(describe));
      const table = new Table(meta);
      for (const r of rows) {
        table.put(r);
        byId.set(String(r.Id), { table, rec: r });
      }
      metas.set(meta.name.toLowerCase(), meta);
      tables.set(meta, table);
    };
    add(CUSTOM_FIELD, this.#fieldRows());
    add(CUSTOM_OBJECT, this.#objectRows());
    add(ENTITY_DEFINITION, this.#entityRows());
    return {
      object: (name) => metas.get(name.toLowerCase()),
      lookup: (id) => byId.get(id),
      table: (meta) => tables.get(meta) ?? new Table(meta),
    };
  }

  #audit(id: string): SRecord {
    const m = this.metadata.get(id);
    const when = m?.createdDate ?? '2024-01-01T00:00:00.000+0000';
    const who = m?.createdById ?? this.org.adminUserId;
    return {
      IsDeleted: false,
      CreatedDate: when,
      CreatedById: who,
      LastModifiedDate: when,
      LastModifiedById: who,
      SystemModstamp: when,
    };
  }

  #fieldRows(): SRecord[] {
    const rows: SRecord[] = [];
    for (const meta of this.org.schema.all()) {
      for (const f of meta.fields) {
        if (!f.custom) continue;
        const fullName = `${meta.name}.${f.name}`;
        const id = this.fieldId(fullName);
        const stored = this.metadata.get(id);
        rows.push({
          ...this.#audit(id),
          Id: id,
          DeveloperName: f.name.replace(/__c$/, ''),
          TableEnumOrId: this.tableEnumOrId(meta.name, meta.describe.custom),
          NamespacePrefix: null,
          ManageableState: 'unmanaged',
          FullName: fullName,
          Description: typeof stored?.metadata.description === 'string' ? stored.metadata.description : null,
          InlineHelpText: f.inlineHelpText,
          Length: f.length,
          EntityDefinitionId: this.tableEnumOrId(meta.name, meta.describe.custom),
          Metadata: null,
        });
      }
    }
    return rows;
  }

  #objectRows(): SRecord[] {
    return this.org.schema
      .all()
      .filter((m) => m.describe.custom)
      .map((m) => {
        const id = this.objectId(m.name);
        return {
          ...this.#audit(id),
          Id: id,
          DeveloperName: m.name.replace(/__c$/, ''),
          NamespacePrefix: null,
          ManageableState: 'unmanaged',
          FullName: m.name,
          ExternalName: null,
          Description: null,
          Metadata: null,
        };
      });
  }

  #entityRows(): SRecord[] {
    return this.org.schema.all().map((m) => ({
      ...this.#audit(''),
      Id: `000${m.name}`,
      DurableId: this.tableEnumOrId(m.name, m.describe.custom),
      QualifiedApiName: m.name,
      DeveloperName: m.name.replace(/__c$/, ''),
      Label: m.describe.label,
      PluralLabel: m.describe.labelPlural,
      KeyPrefix: m.keyPrefix || null,
      IsCustomizable: true,
    }));
  }
}
