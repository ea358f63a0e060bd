import { note, printJson, printTable, UsageError, whole } from '../io.ts';
import { type Group, leaf, listing } from './subcommands.ts';

const list = listing({
  help: `./bin/crm-proxy.mjs requests list [--connection ID] [--token ID] [--status 2xx|3xx|4xx|5xx] [--request-id ID] [--limit N] [--json]
    the request log, newest first (the same entries as the console and GET /v1/admin/requests)`,
  options: {
    connection: { type: 'string' },
    token: { type: 'string' },
    status: { type: 'string' },
    'request-id': { type: 'string' },
    limit: { type: 'string' },
  },
  check(values) {
    if (values.status !== undefined && !/^[2-5]xx$/.test(values.status)) {
      throw new UsageError('--status must be 2xx, 3xx, 4xx or 5xx');
    }
    whole(values.limit, '--limit', 50, 1000);
  },
  load(core, values) {
    return core.admin.requests({
      connection_id: values.connection,
      token_id: values.token,
      status_class: values.status,
      request_id: values['request-id'],
      limit: whole(values.limit, '--limit', 50, 1000),
    });
  },
  empty: 'No requests match.',
  headers: [
    'TIME',
    'METHOD',
    'PATH',
    'STATUS',
    'MS',
    'CRM CALLS',
    'INTERFACE',
    'REQUEST ID',
    'TOKEN',
    'CONNECTION',
  ],
  row: (e) => [
    e.at,
    e.method,
    e.path,
    String(e.status),
    String(e.latencyMs),
    String(e.crmCalls),
    e.interface ?? '',
    e.requestId,
    e.tokenId ?? '',
    e.connectionId ?? '',
  ],
});

export const requests: Group = { subcommands: { list } };

export const usage = leaf({
  help: './bin/crm-proxy.mjs usage [--connection ID] [--hours N] [--json]   requests and errors per hour (default: 168 hours)',
  options: {
    connection: { type: 'string' },
    hours: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
  check: (values) => whole(values.hours, '--hours', 168, 168),
  async run(core, values) {
    const hours = whole(values.hours, '--hours', 168, 168);
    const series = await core.admin.usage(hours, values.connection);
    if (values.json) {
      printJson(series);
      return 0;
    }
    const rows = series.flatMap((s) =>
      s.hours.flatMap((h, i) =>
        (s.requests[i] ?? 0) > 0
          ? [[s.connectionId ?? '(none)', `${h}:00Z`, String(s.requests[i]), String(s.errors[i])]]
          : [],
      ),
    );
    if (rows.length === 0) {
      note(`No requests in the last ${hours} hours.`);
      return 0;
    }
    printTable(['CONNECTION', 'HOUR', 'REQUESTS', 'ERRORS'], rows);
    return 0;
  },
});
