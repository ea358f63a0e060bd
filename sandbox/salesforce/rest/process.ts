import type { FastifyInstance } from 'fastify';
import type { SalesforceContext } from '../context.ts';
import { normalizeId } from '../org/index.ts';
import {
  type ApiError,
  bothSlashes,
  DATA_PREFIX,
  isRecord,
  sendErrors,
  sendJson,
  versionOf,
} from './common.ts';

/**
 * The Process Rules and Process Approvals resources (REST API guide, "Process Rules", "Process
 * Approvals"). Workflow rules and approval processes are metadata (Setup or the Metadata API), which
 * the sandbox does not emulate, so its org has none: the lists are empty, triggering the rules of a
 * record runs none and succeeds, and an approval request finds no process (Submit) or no work item
 * (Approve, Reject) to act on.
 */
export function registerProcessRoutes(app: FastifyInstance, ctx: SalesforceContext): void {
  for (const url of bothSlashes(`${DATA_PREFIX}/:version/process`)) {
    app.get(url, { config: { kind: 'rest.process' } }, async (request, reply) => {
      const version = versionOf(request, reply);
      if (version === null) return reply;
      return sendJson(reply, 200, {
        approvals: `${DATA_PREFIX}/v${version}/process/approvals`,
        rules: `${DATA_PREFIX}/v${version}/process/rules`,
      });
    });
  }

  for (const url of bothSlashes(`${DATA_PREFIX}/:version/process/rules`)) {
    // Every active workflow rule, grouped by object: none in the sandbox's org.
    app.get(url, { config: { kind: 'rest.processRules' } }, async (request, reply) => {
      if (versionOf(request, reply) === null) return reply;
      return sendJson(reply, 200, { rules: {} });
    });

    // Evaluates the workflow rules of each record named; with no rules, nothing runs.
    app.post(url, { config: { kind: 'rest.processRules.trigger' } }, async (request, reply) => {
      if (versionOf(request, reply) === null) return reply;
      const body = request.body;
      const ids = isRecord(body) ? body.contextIds : undefined;
      if (!Array.isArray(ids) || ids.length === 0) {
        return sendErrors(reply, 400, [{ errorCode: 'MISSING_ARGUMENT', message: 'contextIds' }]);
      }
      const errors = ids.flatMap((raw): ApiError[] => {
        const id = typeof raw === 'string' ? normalizeId(raw) : null;
        if (id === null) return [{ errorCode: 'MALFORMED_ID', message: `malformed id ${String(raw)}` }];
        const found = ctx.org.get(id);
        if (found === undefined || found.record.IsDeleted === true) {
          return [{ errorCode: 'INVALID_CROSS_REFERENCE_KEY', message: `invalid cross reference id: ${id}` }];
        }
        return [];
      });
      return sendJson(
        reply,
        200,
        errors.length === 0
          ? { errors: null, success: true }
          : {
              errors: errors.map((e) => ({ message: e.message, statusCode: e.errorCode, fields: [] })),
              success: false,
            },
      );
    });
  }

  for (const url of bothSlashes(`${DATA_PREFIX}/:version/process/approvals`)) {
    // Every approval process definition, grouped by object: none in the sandbox's org.
    app.get(url, { config: { kind: 'rest.processApprovals' } }, async (request, reply) => {
      if (versionOf(request, reply) === null) return reply;
      return sendJson(reply, 200, { approvals: {} });
    });

    app.post(url, { config: { kind: 'rest.processApprovals.request' } }, async (request, reply) => {
      if (versionOf(request, reply) === null) return reply;
      const body = request.body;
      const requests = isRecord(body) ? body.requests : undefined;
      if (!Array.isArray(requests) || requests.length === 0) {
        return sendErrors(reply, 400, [{ errorCode: 'MISSING_ARGUMENT', message: 'requests' }]);
      }
      for (const r of requests) {
        const actionType = isRecord(r) ? r.actionType : undefined;
        const contextId = isRecord(r) ? r.contextId : undefined;
        if (actionType !== 'Submit' && actionType !== 'Approve' && actionType !== 'Reject') {
          return sendErrors(reply, 400, [
            {
              errorCode: 'JSON_PARSER_ERROR',
              message: `Cannot deserialize value of type \`ActionType\` from String "${String(actionType)}": not one of the values accepted for Enum class: [Submit, Approve, Reject]`,
            },
          ]);
        }
        const id = typeof contextId === 'string' ? normalizeId(contextId) : null;
        if (id === null) {
          return sendErrors(reply, 400, [
            { errorCode: 'MALFORMED_ID', message: `malformed id ${String(contextId)}` },
          ]);
        }
        if (actionType === 'Submit') {
          // No approval process exists, so none can apply to the record.
          const found = ctx.org.get(id);
          return sendErrors(
            reply,
            400,
            found === undefined || found.record.IsDeleted === true
              ? [{ errorCode: 'INVALID_CROSS_REFERENCE_KEY', message: `invalid cross reference id: ${id}` }]
              : [
                  {
                    errorCode: 'NO_APPLICABLE_PROCESS',
                    message: 'No applicable approval process was found.',
                  },
                ],
          );
        }
        // Approve and Reject name a work item (ProcessInstanceWorkitem); there are none.
        return sendErrors(reply, 400, [
          { errorCode: 'INVALID_CROSS_REFERENCE_KEY', message: `invalid cross reference id: ${id}` },
        ]);
      }
      return reply;
    });
  }
}
