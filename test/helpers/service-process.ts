// The service as a child process on a SQLite file, connected to a Salesforce sandbox that runs in
// another process, so a test can SIGKILL it mid-job and start it again on the same store.
// argv[2]: {"dataDir", "sandbox": {"url", "credentials"}}. Prints one JSON line {baseUrl, token};
// the connection and token made on the first start are kept in the data dir for the next ones.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/index.ts';
import { startService } from '../../src/main.ts';

interface Args {
  dataDir: string;
  sandbox: {
    url: string;
    credentials: { clientId: string; clientSecret: string; refreshToken: string; accessToken: string };
  };
}

const args = JSON.parse(process.argv[2] ?? '{}') as Args;
const config = loadConfig({
  PORT: '0',
  HOST: '127.0.0.1',
  CRM_PROXY_DATA_DIR: args.dataDir,
  CRM_PROXY_SANDBOX: 'false',
  LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'silent',
  CRM_PROXY_JOB_LEASE_MS: process.env['CRM_PROXY_JOB_LEASE_MS'] ?? '1000',
  CRM_PROXY_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
  CRM_PROXY_RATE_LIMIT_PER_SECOND: '0',
});
const client = {
  clientId: args.sandbox.credentials.clientId,
  clientSecret: args.sandbox.credentials.clientSecret,
};
const service = await startService(config, {
  sandboxes: { salesforce: client, hubspot: client },
});
const saved = join(args.dataDir, 'crash-stack.json');
let token: string;
if (existsSync(saved)) {
  token = (JSON.parse(readFileSync(saved, 'utf8')) as { token: string }).token;
} else {
  const created = await service.ctx.connections.create({
    provider: 'salesforce',
    label: 'crash test',
    instanceUrl: args.sandbox.url,
    apiBaseUrl: args.sandbox.url,
    sandbox: true,
    credentials: {
      kind: 'oauth',
      refreshToken: args.sandbox.credentials.refreshToken,
      accessToken: args.sandbox.credentials.accessToken,
    },
  });
  if (!created.ok) throw new Error(created.message);
  const issued = await service.ctx.auth.createToken({ connectionId: created.connection.id, name: 'crash' });
  if (!issued.ok) throw new Error(issued.message);
  token = issued.token;
  writeFileSync(saved, JSON.stringify({ token }));
}
process.stdout.write(`${JSON.stringify({ baseUrl: service.baseUrl, token })}\n`);
