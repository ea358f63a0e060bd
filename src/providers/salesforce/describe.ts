import { type ApiError, unknownObject } from '../../errors/index.ts';
import { closestName } from '../../lib/closest.ts';
import type { TtlCache } from '../../lib/ttl-cache.ts';
import { parseJson } from '../client/types.ts';
import { crmErrorFromResponse, unreachableAsCrmError } from '../errors.ts';
import type { CrmSession, DescribeFacet, DescribeGlobalResult, ObjectDescribe } from './describe-types.ts';
import { SALESFORCE_PROFILE } from './profile.ts';

/** Describe Global and sObject Describe, cached per connection; results are Salesforce's, unchanged. */
/** Describes per connection: `{connectionId}\u0000global` and `{connectionId}\u0000object:{Name}`. */
export type DescribeCache = TtlCache<DescribeGlobalResult | ObjectDescribe | null>;

/** Drops one connection's cached describes (after a metadata change). */
export function forgetDescribes(cache: DescribeCache, connectionId: string): void {
  cache.deleteWhere((key) => key.startsWith(`${connectionId}\u0000`));
}

/** One connection's cached describe; each key always holds the same kind of result. */
function cached<T extends DescribeGlobalResult | ObjectDescribe | null>(
  cache: DescribeCache,
  connectionId: string,
  key: string,
  load: () => Promise<T>,
): Promise<T> {
  return cache.getOrLoad(`${connectionId}\u0000${key}`, load) as Promise<T>;
}

export function salesforceDescribe(cache: DescribeCache, apiVersion: string): DescribeFacet {
  const data = SALESFORCE_PROFILE.dataPath(apiVersion);

  async function describeGlobal(session: CrmSession): Promise<DescribeGlobalResult> {
    return cached(cache, session.connectionId, 'global', async (): Promise<DescribeGlobalResult> => {
      const response = await unreachableAsCrmError('salesforce', 'describe global', () =>
        session.send({
          method: 'GET',
          url: `${session.baseUrl}${data}/sobjects/`,
          idempotent: true,
          label: 'salesforce.describe.global',
        }),
      );
      const body = parseJson<DescribeGlobalResult>(response);
      if (response.status !== 200 || body === undefined || !Array.isArray(body.sobjects)) {
        throw crmErrorFromResponse('salesforce', response, 'describe global');
      }
      return body;
    });
  }

  async function resolveObjectName(session: CrmSession, objectName: string): Promise<string | null> {
    const global = await describeGlobal(session);
    const wanted = objectName.toLowerCase();
    return global.sobjects.find((o) => o.name.toLowerCase() === wanted)?.name ?? null;
  }

  return {
    describeGlobal,
    resolveObjectName,
    async unknownObject(session: CrmSession, objectName: string): Promise<ApiError> {
      const global = await describeGlobal(session);
      return unknownObject(
        objectName,
        closestName(
          objectName,
          global.sobjects.map((o) => o.name),
        ),
      );
    },
    async describeObject(session: CrmSession, objectName: string): Promise<ObjectDescribe | null> {
      const name = await resolveObjectName(session, objectName);
      if (name === null) return null;
      return cached(
        cache,
        session.connectionId,
        `object:${name}`,
        async (): Promise<ObjectDescribe | null> => {
          const response = await unreachableAsCrmError('salesforce', 'describe object', () =>
            session.send({
              method: 'GET',
              url: `${session.baseUrl}${data}/sobjects/${encodeURIComponent(name)}/describe/`,
              idempotent: true,
              label: 'salesforce.describe.object',
            }),
          );
          if (response.status === 404) return null;
          const body = parseJson<ObjectDescribe>(response);
          if (response.status !== 200 || body === undefined || !Array.isArray(body.fields)) {
            throw crmErrorFromResponse('salesforce', response, `describe ${name}`);
          }
          return body;
        },
      );
    },
  };
}
