import type { FastifyInstance } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import { hubspotError, sendHubSpotError } from '../errors.ts';

/**
 * `POST /crm/v4/associations/usage/high-usage-report/{userId}`: HubSpot queues a report of the
 * records near their association limits and sends it to that user; the sandbox answers the queued
 * request (`ReportCreationResponse`) for a user of the account and sends nothing.
 */
export function registerUsageReportRoute(app: FastifyInstance, ctx: HubSpotContext): void {
  app.post<{ Params: { userId: string } }>(
    '/crm/v4/associations/usage/high-usage-report/:userId',
    { config: { kind: 'associations.usageReport' } },
    async (req, reply) => {
      const owner = /^\d+$/.test(req.params.userId)
        ? ctx.portal.owners.getByUserId(Number(req.params.userId))
        : undefined;
      if (owner === undefined) {
        return sendHubSpotError(
          reply,
          404,
          hubspotError({ message: `User ${req.params.userId} not found`, category: 'OBJECT_NOT_FOUND' }),
        );
      }
      // `enqueueTime` is the document's `DateTime` object (epoch milliseconds, offset in minutes), not an ISO string.
      const enqueueTime = { dateOnly: false, timeZoneShift: 0, value: Date.parse(ctx.portal.now()) };
      return { userId: owner.userId, userEmail: owner.email, enqueueTime };
    },
  );
}
