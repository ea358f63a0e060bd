import type { Clock } from '../../lib/clock.ts';
import type { SharedState } from '../../lib/shared-state.ts';
import { TtlCache } from '../../lib/ttl-cache.ts';
import type { CrmSession, HandlerCall } from '../adapter.ts';
import { type OutboundResponse, parseJson } from '../client/types.ts';
import { crmErrorFromResponse } from '../errors.ts';
import { DAILY_SPENT, type HubSpotCall, HubSpotPacer, hubspotCall, type PacerOptions } from './pacing.ts';
import { HUBSPOT_PROFILE } from './profile.ts';

/** A custom object's schema, as the cache keeps it. */
export interface SchemaSummary {
  objectTypeId: string;
  fullyQualifiedName: string;
  name: string;
}

/** What the service needs of a HubSpot property to check and format the values written to it. */
export interface PropertyInfo {
  name: string;
  type: string;
  fieldType: string;
  /** Option values and labels (enumerations). */
  options: Array<{ value: string; label: string }>;
  /** Options come from elsewhere (owners, pipelines): not checked here. */
  externalOptions: boolean;
  hasUniqueValue: boolean;
  readOnlyValue: boolean;
}

export interface ConnectionState {
  pacer: HubSpotPacer;
  /** Custom object schemas (one key). */
  schemas: TtlCache<SchemaSummary[]>;
  /** Properties per object type id. */
  properties: TtlCache<PropertyInfo[]>;
}

const PROPERTIES_CHANGED = 'hubspot:properties-changed';

function forgetCached(state: ConnectionState): void {
  state.properties.clear();
  state.schemas.clear();
}

/**
 * What the HubSpot adapter keeps per connection: its pacer (HubSpot's limits are per account and
 * app, so per connection here) and its cached schemas and property lists.
 */
export class PerConnectionState {
  readonly clock: Clock;
  readonly #pacerOptions: Omit<PacerOptions, 'clock'>;
  readonly #states = new Map<string, ConnectionState>();
  readonly #shared: SharedState | undefined;

  constructor(options: {
    clock: Clock;
    pacer?: Omit<PacerOptions, 'clock'>;
    shared?: SharedState | undefined;
  }) {
    this.clock = options.clock;
    this.#pacerOptions = options.pacer ?? {};
    this.#shared = options.shared;
    // Another instance changed a connection's properties or schemas (null: notices may have been missed).
    options.shared?.subscribe(PROPERTIES_CHANGED, (connectionId) => {
      const states = connectionId === null ? [...this.#states.values()] : [this.#states.get(connectionId)];
      for (const state of states) if (state !== undefined) forgetCached(state);
    });
    // Another instance found a connection's daily allowance used up.
    options.shared?.subscribe(DAILY_SPENT, (message) => {
      let m: { connectionId?: unknown; until?: unknown; crmError?: unknown } | null;
      try {
        m = JSON.parse(message ?? 'null');
      } catch {
        return;
      }
      if (typeof m?.connectionId === 'string' && typeof m.until === 'number')
        this.of(m.connectionId).pacer.spentForTheDay(m.until, m.crmError, false);
    });
  }

  /** Tells every instance (this one too) that the connection's properties or schemas changed. */
  async propertiesChanged(connectionId: string): Promise<void> {
    const state = this.#states.get(connectionId);
    if (state !== undefined) forgetCached(state);
    await this.#shared?.publish(PROPERTIES_CHANGED, connectionId);
  }

  of(connectionId: string): ConnectionState {
    let state = this.#states.get(connectionId);
    if (state === undefined) {
      state = {
        pacer: new HubSpotPacer({
          clock: this.clock,
          shared: this.#shared,
          sharedKey: connectionId,
          ...this.#pacerOptions,
        }),
        schemas: new TtlCache({ ttlMs: HUBSPOT_PROFILE.schemasTtlMs, max: 1, clock: this.clock }),
        properties: new TtlCache({
          ttlMs: HUBSPOT_PROFILE.propertiesTtlMs,
          max: HUBSPOT_PROFILE.cachedTypesPerConnection,
          clock: this.clock,
        }),
      };
      this.#states.set(connectionId, state);
    }
    return state;
  }

  /** A paced call on the session's connection (429s retried as HubSpot indicates). */
  call(session: CrmSession, call: HubSpotCall): Promise<OutboundResponse> {
    return hubspotCall(session, this.of(session.connectionId).pacer, this.clock, call);
  }

  /** A paced call under the handler call's concurrency cap. */
  send(call: HandlerCall, request: HubSpotCall): Promise<OutboundResponse> {
    return call.limiter.run(() => this.call(call.session, request));
  }

  /**
   * A paced GET that must answer 200, as JSON (under the concurrency cap when the call has one);
   * any other answer is HubSpot's error about `what`.
   */
  async get<T>(
    call: { session: CrmSession; limiter?: HandlerCall['limiter'] },
    path: string,
    label: string,
    what: string,
  ): Promise<T | undefined> {
    const request = { method: 'GET', path, idempotent: true, label } as const;
    const send = () => this.call(call.session, request);
    const response = await (call.limiter === undefined ? send() : call.limiter.run(send));
    if (response.status !== 200) throw crmErrorFromResponse('hubspot', response, what);
    return parseJson<T>(response);
  }
}
