import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CallAccounting, Realism } from '../../shared/index.ts';
import type { LimitsOptions } from '../limits/state.ts';
import type { OAuthState } from '../oauth/index.ts';
import type { ObjectMeta } from '../org/meta.ts';
import type { DmlOptions, SaveResult } from '../org/types.ts';
import type { QueryRun } from '../query/execute.ts';

type InputRecord = Record<string, unknown>;

/** The part of the org kernel Bulk uses: metadata and the DML calls (per-record results in input order). */
export interface BulkOrg {
  readonly adminUserId: string;
  readonly schema: { get(name: string): ObjectMeta | undefined };
  insert(objectName: string, records: InputRecord[], opts?: DmlOptions): SaveResult[];
  update(objectName: string | null, records: InputRecord[], opts?: DmlOptions): SaveResult[];
  upsert(
    objectName: string,
    externalIdField: string,
    records: InputRecord[],
    opts?: DmlOptions,
  ): SaveResult[];
  delete(ids: string[], opts?: DmlOptions): SaveResult[];
  query(soql: string, options: { includeDeleted?: boolean; version?: string }): QueryRun;
}

/** Options of `startSalesforceSandbox` that Bulk reads. */
export interface BulkOptions extends LimitsOptions {
  /**
   * Order of rows in Bulk 2.0 result files. Salesforce documents no order ("not guaranteed to
   * match the ordering of the uploaded data"); `input` (default) keeps upload order inside each
   * file, `shuffled` mixes it (seeded) so clients prove they correlate by a key, not by position.
   */
  bulkResultOrder?: 'input' | 'shuffled';
}

export interface BulkContext {
  org: BulkOrg;
  oauth: OAuthState;
  realism: Realism;
  accounting: CallAccounting;
  options: BulkOptions;
  onReset(fn: () => void): void;
}

/** The user behind the request's token (Bulk 2.0: `Authorization`; Bulk 1.0: `X-SFDC-Session`). */
export function requestUserId(ctx: BulkContext, request: FastifyRequest): string {
  const session = request.headers['x-sfdc-session'];
  const auth = request.headers.authorization;
  const token =
    typeof session === 'string'
      ? session
      : auth === undefined
        ? undefined
        : /^(?:Bearer|OAuth)\s+(.+)$/i.exec(auth)?.[1];
  const v = token === undefined ? null : ctx.oauth.verifyAccessToken(token);
  return v?.ok ? v.userId : ctx.org.adminUserId;
}

/** `2024-11-25T10:15:00.000+0000`, as Bulk 2.0 job info writes dates. */
export const sfDateTime = (ms: number): string => new Date(ms).toISOString().replace('Z', '+0000');

/** REST error body: always an array of `{errorCode, message}` (Bulk 2.0 uses the REST format). */
export function restError(reply: FastifyReply, status: number, errorCode: string, message: string) {
  return reply
    .code(status)
    .header('content-type', 'application/json;charset=UTF-8')
    .send(JSON.stringify([{ errorCode, message }]));
}

/** `v62.0` → `62.0`; null for anything else (the route then answers 404 as Salesforce does). */
export function apiVersion(segment: string): string | null {
  const m = /^v(\d{2,3}\.\d)$/.exec(segment);
  return m?.[1] ?? null;
}
