import { ApiError } from '../../errors/index.ts';
import { parseJson } from '../client/types.ts';
import { signCursor, verifyCursor } from '../cursor.ts';
import { crmErrorFromResponse, unreachableAsCrmError } from '../errors.ts';
import type { CrmRecord, CrmSession } from './describe-types.ts';
import type { QueryPage } from './facet.ts';
import { SALESFORCE_PROFILE } from './profile.ts';
import { checkQueryUri, queryUriRefused } from './query-length.ts';

/** Records per answer; Salesforce's pages are at most `PAGE` records. */
const MAX_RECORDS_PER_ANSWER = SALESFORCE_PROFILE.queryMaxRecordsPerAnswer;
const PAGE = SALESFORCE_PROFILE.queryPageSize;

interface SalesforcePage {
  totalSize: number;
  done: boolean;
  nextRecordsUrl?: string;
  records: CrmRecord[];
}

interface CursorPayload {
  /** Connection the cursor belongs to. */
  c: string;
  /** Salesforce's nextRecordsUrl. */
  u: string;
}

/** One page of a query (at most PAGE records). */
async function page(session: CrmSession, url: string): Promise<SalesforcePage> {
  const response = await unreachableAsCrmError('salesforce', 'query', () =>
    session.send({
      method: 'GET',
      url,
      headers: { accept: 'application/json', 'sforce-query-options': `batchSize=${PAGE}` },
      idempotent: true,
      label: 'salesforce.query',
    }),
  );
  if (response.status === 414 || response.status === 431) throw queryUriRefused(response.status);
  const body = parseJson<SalesforcePage>(response);
  if (response.status === 400) {
    const first = Array.isArray(body) ? (body[0] as { errorCode?: string; message?: string }) : undefined;
    throw new ApiError(
      'invalid_query',
      `Salesforce rejected the query: ${first?.message?.trim() ?? response.text.slice(0, 500)}`,
      { details: [{ provider: 'salesforce', crm_error: body ?? response.text.slice(0, 500) }] },
    );
  }
  if (response.status !== 200 || body === undefined || !Array.isArray(body.records)) {
    throw crmErrorFromResponse('salesforce', response, 'query');
  }
  return body;
}

/**
 * SOQL through the REST query resource. Pages of 2,000 (`Sforce-Query-Options: batchSize=2000`)
 * are followed while another full page still fits in 10,000 records; then the answer carries a
 * cursor: Salesforce's locator bound to the connection and signed (HMAC-SHA256), so it can be
 * neither forged nor used from another connection. Reads are retried on 5xx/timeouts (decide()).
 */
export function salesforceQuery(apiVersion: string, cursorKey: Buffer) {
  const data = SALESFORCE_PROFILE.dataPath(apiVersion);

  async function collect(session: CrmSession, firstUrl: string): Promise<QueryPage> {
    const records: CrmRecord[] = [];
    let url: string | undefined = firstUrl;
    let totalSize = 0;
    while (url !== undefined) {
      const got = await page(session, url);
      totalSize = got.totalSize;
      for (const r of got.records) records.push(r);
      url =
        got.done || got.nextRecordsUrl === undefined ? undefined : `${session.baseUrl}${got.nextRecordsUrl}`;
      if (url !== undefined && records.length + PAGE > MAX_RECORDS_PER_ANSWER) {
        const next = got.nextRecordsUrl as string;
        return {
          totalSize,
          done: false,
          records,
          next_cursor: signCursor(cursorKey, { c: session.connectionId, u: next } satisfies CursorPayload),
        };
      }
    }
    return { totalSize, done: true, records, next_cursor: null };
  }

  return {
    query: (session: CrmSession, soql: string) => {
      const target = `${data}/query?q=${encodeURIComponent(soql)}`;
      checkQueryUri(target, soql.length);
      return collect(session, `${session.baseUrl}${target}`);
    },
    queryMore: (session: CrmSession, cursor: string) => {
      const payload = verifyCursor<CursorPayload>(
        cursorKey,
        cursor,
        session.connectionId,
        (p) => typeof p.u === 'string' && p.u.startsWith('/services/data/'),
      );
      return collect(session, `${session.baseUrl}${payload.u}`);
    },
  };
}
