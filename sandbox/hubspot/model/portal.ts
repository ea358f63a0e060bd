import { seedPortal } from '../seed/index.ts';
import { AssociationStore } from './associations.ts';
import { type ActingUser, type AuditEntry, AuditLog, type StoreWrite } from './audit-log.ts';
import { buildCustomType, type ObjectSchemaInput } from './custom-types.ts';
import { ObjectTypeRegistry } from './object-types.ts';
import { OwnerStore } from './owners.ts';
import { PipelineStore } from './pipelines.ts';
import { PropertyRegistry } from './properties.ts';
import { RecordStore } from './records.ts';
import type { ObjectTypeDefinition } from './types.ts';

export interface PortalOptions {
  /** HubSpot account id ("hub id"); appears in custom type names `p{portalId}_…`. */
  portalId?: number;
  /** Fill the portal with the deterministic seed (default true). */
  seed?: boolean;
  /** Clock for timestamps of writes (tests may freeze it). */
  now?: () => Date;
}

export const DEFAULT_PORTAL_ID = 7654321;
/** User id that owns writes made through the API (matches the seeded first owner's `userId`). */
export const API_USER_ID = '1122334';

const FIRST_RECORD_ID = 1001;
const FIRST_CUSTOM_TYPE_ID = 3604285;

/**
 * One HubSpot account: object types, properties and groups, records, owners and pipelines.
 * `reset()` swaps every store for a freshly seeded one, so hold on to the portal, not its stores.
 */
export class Portal {
  readonly portalId: number;
  types!: ObjectTypeRegistry;
  properties!: PropertyRegistry;
  records!: RecordStore;
  owners!: OwnerStore;
  associations!: AssociationStore;
  pipelines!: PipelineStore;
  auditLog!: AuditLog;
  #clock: () => Date;
  #seed: boolean;

  constructor(options: PortalOptions = {}) {
    this.portalId = options.portalId ?? DEFAULT_PORTAL_ID;
    this.#clock = options.now ?? (() => new Date());
    this.#seed = options.seed ?? true;
    this.reset();
  }

  /** Current time as HubSpot writes it: ISO 8601 UTC with milliseconds. */
  now(): string {
    return this.#clock().toISOString();
  }

  /** Back to the seeded state (or empty standard types when seeding is off). */
  reset(): void {
    const now = () => this.now();
    this.types = new ObjectTypeRegistry(FIRST_CUSTOM_TYPE_ID);
    this.properties = new PropertyRegistry(now);
    this.records = new RecordStore(FIRST_RECORD_ID, now);
    this.owners = new OwnerStore();
    this.associations = new AssociationStore();
    this.pipelines = new PipelineStore(now);
    this.auditLog = new AuditLog(now);
    seedPortal(this, { records: this.#seed });
    // From here on, writes are the account's activity (the seed is its past, not logged action by action).
    this.records.onWrite = (w) => this.#logged(w.action === 'UPDATE' ? 'PROPERTY_VALUE' : 'CRM_OBJECT', w);
    this.properties.onWrite = (w) => this.#logged('PROPERTY', w);
    this.pipelines.onWrite = (w) => this.#logged('PIPELINE', w);
  }

  /** The user API writes are made as: the first seeded owner (`API_USER_ID`). */
  apiUser(): ActingUser {
    const owner = this.owners.getByUserId(Number(API_USER_ID));
    return { userId: Number(API_USER_ID), ...(owner === undefined ? {} : { userEmail: owner.email }) };
  }

  /** Adds an entry to the account's audit log, made by `actingUser` (default: the API user). */
  audit(
    entry: Omit<AuditEntry, 'id' | 'occurredAt' | 'actingUser'> & {
      actingUser?: ActingUser;
      occurredAt?: string;
    },
  ): AuditEntry {
    return this.auditLog.record({ ...entry, actingUser: entry.actingUser ?? this.apiUser() });
  }

  /** Category, the type's upper-case singular name as sub-category (`CONTACT`, `DEAL`, `CAR`), action, target. */
  #logged(category: string, write: StoreWrite): void {
    const type = this.types.resolve(write.objectTypeId);
    this.audit({
      category,
      subCategory: type?.singularName ?? write.objectTypeId,
      action: write.action,
      targetObjectId: write.targetObjectId,
    });
  }

  /**
   * Registers a custom object type (Schemas API create): allocates `2-<n>`, the fully qualified
   * name `p{portalId}_{name}`, its property group, properties and system properties. The caller has
   * validated the schema (name free, required properties defined, …).
   */
  defineObjectType(
    schema: ObjectSchemaInput,
    options: { at?: string; userId?: string } = {},
  ): ObjectTypeDefinition {
    const parts = buildCustomType(
      this.portalId,
      this.types.allocateCustomId(),
      schema,
      options.at ?? this.now(),
      options.userId ?? API_USER_ID,
    );
    // Each associated object gets its pair of association types; the definitions carry their ids.
    const defs = parts.type.associations;
    for (let i = 0; i + 1 < defs.length; i += 2) {
      const forward = defs[i] as (typeof defs)[number];
      const back = defs[i + 1] as (typeof defs)[number];
      const [f, b] = this.associations.definePair(
        forward.fromObjectTypeId,
        forward.toObjectTypeId,
        forward.name,
      );
      forward.id = String(f.typeId);
      back.id = String(b.typeId);
    }
    this.properties.load(parts.type.objectTypeId, parts.properties, parts.groups);
    return this.types.register(parts.type);
  }

  /** Hard-deletes a custom type with its properties and records. */
  removeObjectType(objectTypeId: string): boolean {
    if (!this.types.remove(objectTypeId)) return false;
    this.properties.drop(objectTypeId);
    this.records.drop(objectTypeId);
    return true;
  }
}
