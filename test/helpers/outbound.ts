import type { OutboundResponse } from '../../src/providers/client/types.ts';

/** A CRM answer as the outbound client hands it over, for tests of the decisions made on it. */
export const answer = (
  status: number,
  headers: Record<string, string> = {},
  body: unknown = {},
): OutboundResponse => ({
  status,
  headers,
  text: JSON.stringify(body),
  attempts: 1,
});
