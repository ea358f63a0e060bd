import { seedPortal } from '../seed/index.ts';
import { AssociationStore } from './associations.ts';
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
    this.pipelines = new PipelineStore();
    seedPortal(this, { records: this.#seed });
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
