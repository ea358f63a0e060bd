// The hand-written half of the client: what generated types cannot give. The bearer token on every
// call, failures as one typed CrmProxyError, cursors as async iterators, durable-write jobs, and
// `Idempotency-Key` / `Prefer: respond-async` on writes. Everything else goes through `raw`, the
// openapi-fetch client typed by the generated schema, so a route the API adds is reachable at once.
import createFetchClient, { type Client } from 'openapi-fetch';
import { CrmProxyError, isErrorBody, unwrap } from './errors.ts';
import { type Job, JobsApi, type RecordResult } from './jobs.ts';
import type { paths } from './schema.ts';

export { CrmProxyError, type ErrorBody, type ErrorCode } from './errors.ts';
export { type Job, JobsApi, type PageOptions, type RecordResult, type WaitOptions } from './jobs.ts';
export type { components, operations, paths } from './schema.ts';

/** A record: field name → value (field names are case-insensitive on input). */
export type CrmRecord = Record<string, unknown>;

type Body<P extends keyof paths, M extends 'post'> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

export type CustomFieldDefinition = Body<'/v1/object/add_custom_field/{object_name}', 'post'>['data'];
export type SearchRequest = NonNullable<Body<'/v1/object/query/{object_name}', 'post'>['data']>;
export type AssociationLink = Body<'/v1/object/associate/{object_name}', 'post'>['data'][number];
export type AuditLogFilter = NonNullable<Body<'/v1/audit_logs', 'post'>['data']>;

export interface CrmProxyClientOptions {
  /** Base URL of the service, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** API token `crmp_{region}_…` of one connection (or an operator key `crmpk_…` for the admin routes). */
  token: string;
  /** Another fetch (tests, proxies); default: the global one. */
  fetch?: typeof globalThis.fetch;
  /** Headers added to every request. */
  headers?: Record<string, string>;
}

/** Options of insert, update, delete, upsert and add custom field. */
export interface WriteOptions {
  /** Sent as `Idempotency-Key`: a retry with the same key and request gets the first answer, without a CRM call. */
  idempotencyKey?: string;
  /** `Prefer: respond-async`: insert, update and delete answer at once with the job (`accepted: true`). */
  respondAsync?: boolean;
  /** `X-CRM-Proxy-Interface`: a write interface the connection's CRM lets clients force (`bulk2`, `collections`). */
  writeInterface?: string;
  signal?: AbortSignal;
}

/** Answer of a durable write: per-record results, or (answered 202) the job that will produce them. */
export type WriteAnswer =
  | {
      accepted: false;
      results: RecordResult[];
      /** Set when the write ran as a durable job (`X-CRM-Proxy-Job-Id`). */
      jobId: string | null;
      /** The answer is the stored one of an earlier request with the same `Idempotency-Key`. */
      replayed: boolean;
    }
  | { accepted: true; job: Job };

/** The typed client of one crm-proxy service and one API token. */
export class CrmProxyClient {
  /** The generated client: every route of the OpenAPI document, typed, with the token already set. */
  readonly raw: Client<paths>;
  readonly jobs: JobsApi;
  readonly #baseUrl: string;
  readonly #fetch: typeof globalThis.fetch;
  readonly #headers: Record<string, string>;

  constructor(options: CrmProxyClientOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#headers = { ...options.headers, authorization: `Bearer ${options.token}` };
    this.raw = createFetchClient<paths>({
      baseUrl: this.#baseUrl,
      headers: this.#headers,
      fetch: (request: Request) => this.#fetch(request),
    });
    this.jobs = new JobsApi(this.raw);
  }

  /** Creates records (1 to 10 000). */
  async insert(object: string, records: CrmRecord[], options: WriteOptions = {}): Promise<WriteAnswer> {
    return writeAnswer(
      await this.raw.POST('/v1/object/insert/{object_name}', {
        params: { path: { object_name: object } },
        body: { data: records },
        ...writeInit(options),
      }),
    );
  }

  /** Changes records; each carries its `id`. */
  async update(
    object: string,
    records: Array<CrmRecord & { id: string }>,
    options: WriteOptions = {},
  ): Promise<WriteAnswer> {
    return writeAnswer(
      await this.raw.POST('/v1/object/update/{object_name}', {
        params: { path: { object_name: object } },
        body: { data: records },
        ...writeInit(options),
      }),
    );
  }

  /** Deletes records by id; without `object` the ids must name their type themselves (Salesforce ids). */
  async delete(object: string | undefined, ids: string[], options: WriteOptions = {}): Promise<WriteAnswer> {
    const init = { body: { data: { ids } }, ...writeInit(options) };
    return writeAnswer(
      object === undefined
        ? await this.raw.POST('/v1/object/delete', init)
        : await this.raw.POST('/v1/object/delete/{object_name}', {
            params: { path: { object_name: object } },
            ...init,
          }),
    );
  }

  /** Creates or updates one record matched on `matchKey`. */
  async upsert(
    object: string,
    record: CrmRecord,
    matchKey: string,
    options: Omit<WriteOptions, 'respondAsync'> = {},
  ): Promise<RecordResult[]> {
    const answer = unwrap(
      await this.raw.POST('/v1/object/upsert/{object_name}', {
        params: { path: { object_name: object } },
        body: { data: [record], match_key: matchKey },
        ...writeInit(options),
      }),
    );
    return answer.data;
  }

  /** Records by id, in the order given; `null` where none exists. */
  async get(
    object: string,
    ids: string[],
    options: { fields?: string[]; propertiesWithHistory?: string[] } = {},
  ): Promise<Array<CrmRecord | null>> {
    return unwrap(
      await this.raw.POST('/v1/object/get/{object_name}', {
        params: { path: { object_name: object } },
        body: { data: { ids, ...options } },
      }),
    ).data;
  }

  /** One page of a SOQL query; pass its `next_cursor` back as `{cursor}` for the next. */
  async soqlPage(query: { soql: string } | { cursor: string }) {
    return unwrap(
      await this.raw.POST('/v1/object/soql', {
        body: 'soql' in query ? { data: query.soql } : { cursor: query.cursor },
      }),
    ).data;
  }

  /** Every record a SOQL query returns, page after page, as the pages are read. */
  async *soql(query: string): AsyncGenerator<CrmRecord, void, undefined> {
    let page = await this.soqlPage({ soql: query });
    for (;;) {
      yield* page.records;
      if (page.next_cursor === null) return;
      page = await this.soqlPage({ cursor: page.next_cursor });
    }
  }

  /** One page of a search (filters, sorts, properties); `{cursor}` for the next. */
  async searchPage(object: string, query: { search: SearchRequest } | { cursor: string }) {
    return unwrap(
      await this.raw.POST('/v1/object/query/{object_name}', {
        params: { path: { object_name: object } },
        body: 'search' in query ? { data: query.search } : { cursor: query.cursor },
      }),
    ).data;
  }

  /** Every record a search returns, page after page. */
  async *search(object: string, search: SearchRequest): AsyncGenerator<CrmRecord, void, undefined> {
    let page = await this.searchPage(object, { search });
    for (;;) {
      yield* page.records;
      if (page.next_cursor === null) return;
      page = await this.searchPage(object, { cursor: page.next_cursor });
    }
  }

  /** The objects of the connection's CRM. */
  async describe() {
    return unwrap(await this.raw.POST('/v1/describe')).data;
  }

  /** One object's fields. */
  async describeObject(object: string) {
    return unwrap(
      await this.raw.POST('/v1/describe/{object_name}', { params: { path: { object_name: object } } }),
    ).data;
  }

  /**
   * The countries and states addresses take (Salesforce only): `source` says whether they are the
   * org's State and Country/Territory Picklists or the standard ISO 3166 list.
   */
  async countries() {
    return unwrap(await this.raw.POST('/v1/countries')).data;
  }

  /** Adds a custom field to an object. */
  async addCustomField(
    object: string,
    definition: CustomFieldDefinition,
    options: Omit<WriteOptions, 'respondAsync'> = {},
  ) {
    return unwrap(
      await this.raw.POST('/v1/object/add_custom_field/{object_name}', {
        params: { path: { object_name: object } },
        body: { data: definition },
        ...writeInit(options),
      }),
    );
  }

  /** The records associated with each id, of type `to`. */
  async associations(object: string, ids: string[], to: string) {
    return unwrap(
      await this.raw.POST('/v1/object/associations/{object_name}', {
        params: { path: { object_name: object } },
        body: { data: { ids, to } },
      }),
    ).data;
  }

  /** Links records (with an optional association label). */
  async associate(object: string, links: AssociationLink[]) {
    return unwrap(
      await this.raw.POST('/v1/object/associate/{object_name}', {
        params: { path: { object_name: object } },
        body: { data: links },
      }),
    ).data;
  }

  /** Removes links. */
  async dissociate(object: string, links: AssociationLink[]) {
    return unwrap(
      await this.raw.POST('/v1/object/dissociate/{object_name}', {
        params: { path: { object_name: object } },
        body: { data: links },
      }),
    ).data;
  }

  /** One page of the account's audit log (HubSpot); `{cursor}` for the next. */
  async auditLogsPage(query: { filter: AuditLogFilter } | { cursor: string }) {
    return unwrap(
      await this.raw.POST('/v1/audit_logs', {
        body: 'filter' in query ? { data: query.filter } : { cursor: query.cursor },
      }),
    ).data;
  }

  /** Every audit log entry the filter selects, page after page. */
  async *auditLogs(filter: AuditLogFilter = {}) {
    let page = await this.auditLogsPage({ filter });
    for (;;) {
      yield* page.records;
      if (page.next_cursor === null) return;
      page = await this.auditLogsPage({ cursor: page.next_cursor });
    }
  }

  /**
   * Pass-through: `target` (a path on the CRM's API, or its full URL) as written, answered with the
   * CRM's own status, headers and body. Only a failure of the service itself throws.
   */
  async proxy(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    target: string,
    init: {
      body?: unknown;
      headers?: Record<string, string>;
      idempotencyKey?: string;
      signal?: AbortSignal;
    } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { ...this.#headers, ...init.headers };
    if (init.idempotencyKey !== undefined) headers['idempotency-key'] = init.idempotencyKey;
    let body: string | undefined;
    if (init.body !== undefined) {
      body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await this.#fetch(`${this.#baseUrl}/v1/proxy/${target.replace(/^\/+/, '')}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      ...(init.signal === undefined ? {} : { signal: init.signal }),
    });
    // The service's own failures (token, target, rate limit) carry its error body, whose request id is
    // this request's; a CRM's answer, failed or not, is passed on as it came.
    if (!response.ok) {
      const body: unknown = await response
        .clone()
        .json()
        .catch(() => undefined);
      if (isErrorBody(body) && body.request_id === response.headers.get('x-request-id')) {
        throw CrmProxyError.from(response, body);
      }
    }
    return response;
  }
}

function writeInit(options: WriteOptions): { headers: Record<string, string>; signal?: AbortSignal } {
  const headers: Record<string, string> = {};
  if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
  if (options.respondAsync === true) headers['prefer'] = 'respond-async';
  if (options.writeInterface !== undefined) headers['x-crm-proxy-interface'] = options.writeInterface;
  return { headers, ...(options.signal === undefined ? {} : { signal: options.signal }) };
}

function writeAnswer(answer: { data?: unknown; error?: unknown; response: Response }): WriteAnswer {
  const data = unwrap(answer);
  if (answer.response.status === 202) return { accepted: true, job: data as Job };
  return {
    accepted: false,
    results: (data as { data: RecordResult[] }).data,
    jobId: answer.response.headers.get('x-crm-proxy-job-id'),
    replayed: answer.response.headers.get('idempotent-replayed') === 'true',
  };
}

/** A client for one service and one API token. */
export function createCrmProxyClient(options: CrmProxyClientOptions): CrmProxyClient {
  return new CrmProxyClient(options);
}
