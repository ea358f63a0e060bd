import { parseJson } from '../client/types.ts';
import { crmErrorFromResponse, unreachableAsCrmError } from '../errors.ts';
import type { CrmRecord, CrmSession, RecordsFacet } from './describe-types.ts';
import { SALESFORCE_PROFILE } from './profile.ts';

/**
 * sObject Collections retrieve. POST with a JSON body rather than GET: the ids and field list
 * would otherwise be bound by the URL length (~800 ids), while POST takes 2,000 ids per call.
 */
export function salesforceRetrieve(apiVersion: string): RecordsFacet {
  const data = SALESFORCE_PROFILE.dataPath(apiVersion);
  return {
    retrieveBatchSize: SALESFORCE_PROFILE.retrieveMaxIds,
    async retrieve(session, objectName, ids, fields) {
      const response = await send(session, objectName, ids, fields);
      const body = parseJson<Array<CrmRecord | null>>(response);
      if (response.status !== 200 || !Array.isArray(body) || body.length !== ids.length) {
        throw crmErrorFromResponse('salesforce', response, `retrieve ${objectName}`);
      }
      return body;
    },
    async retrieveJson(session, objectName, ids, fields) {
      const response = await send(session, objectName, ids, fields);
      const text = response.text.trim();
      // Salesforce answers one slot per id, in order (documented); only the array shape is checked here.
      if (response.status !== 200 || !text.startsWith('[') || !text.endsWith(']')) {
        throw crmErrorFromResponse('salesforce', response, `retrieve ${objectName}`);
      }
      return text;
    },
  };

  function send(session: CrmSession, objectName: string, ids: string[], fields: string[]) {
    return unreachableAsCrmError('salesforce', 'collections retrieve', () =>
      session.send({
        method: 'POST',
        url: `${session.baseUrl}${data}/composite/sobjects/${encodeURIComponent(objectName)}`,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ ids, fields }),
        // A retrieve only reads, so it may be resent after a timeout or a dropped connection.
        idempotent: true,
        label: 'salesforce.collections.retrieve',
      }),
    );
  }
}
