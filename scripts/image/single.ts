// One container on its own SQLite store: what an operator checks first, then `docker stop` with an
// upload in flight.
import { request } from 'node:http';
import { docker, dockerOk, inspect } from './docker.ts';
import {
  type CheckRun,
  connectSandbox,
  createToken,
  envFile,
  type Service,
  serviceEnv,
  startService,
} from './service.ts';
import { call, expect, seconds, step, until } from './steps.ts';

/** docker stop's grace period in the check: above the service's 30 s drain. */
const STOP_GRACE_S = 40;

export async function checkSingle(run: CheckRun): Promise<void> {
  await step('refuses to serve /metrics off loopback without a token', () => refusesOpenMetrics(run));
  let service: Service | undefined;
  await step(
    '/readyz answers (production, SQLite on /data)',
    async () => {
      service = await startService(run, 'single');
      return `${service.url}/readyz 200`;
    },
    true,
  );
  if (service === undefined) return;
  const s = service;
  await step('the banner names the address really listened on', () => banner(s));
  await step('the process is not root', () => notRoot(s));
  await step('the root file system is read-only, only /data is written', () => readOnly(s));
  let token = '';
  await step('the CLI works inside (connections add, tokens create), and its token reads', async () => {
    const connectionId = await connectSandbox(run, s);
    token = (await createToken(s, connectionId)).token;
    const described = await call(`${s.url}/v1/describe/Account`, token, { method: 'POST' });
    expect(described.status === 200, `describe answered ${described.status}`);
    return `${connectionId}, describe Account 200`;
  });
  await step('the HEALTHCHECK turns healthy', () => healthy(s));
  await step('/metrics refuses a scrape without its token', () => metricsGuarded(run, s));
  await step(`docker stop with an upload in flight: answered, exit 0 within ${STOP_GRACE_S} s`, () =>
    drainsOnStop(run, s, token),
  );
}

async function refusesOpenMetrics(run: CheckRun): Promise<string> {
  // The image's defaults (metrics on 0.0.0.0:9464) with no token: the start must stop, naming it.
  const env = serviceEnv(run, { CRM_PROXY_METRICS_TOKEN: '', PORT: '0' });
  const ran = await docker(
    [
      'run',
      '--rm',
      '--network',
      'none',
      '--read-only',
      '--tmpfs',
      '/tmp',
      '--env-file',
      await envFile(run, 'open-metrics', env),
      run.image,
    ],
    { timeoutMs: 120_000 },
  );
  const said = `${ran.stdout}${ran.stderr}`;
  expect(ran.code !== 0, 'the service started with /metrics open to anyone');
  expect(
    said.includes('CRM_PROXY_METRICS_TOKEN is required'),
    `exit ${ran.code} without naming the token: ${said.slice(-500)}`,
  );
  return `exit ${ran.code}: ${said
    .trim()
    .split('\n')
    .find((l) => l.includes('CRM_PROXY_METRICS_TOKEN'))
    ?.trim()}`;
}

async function banner(s: Service): Promise<string> {
  const logs = await docker(['logs', s.name]);
  const line = `${logs.stdout}${logs.stderr}`.split('\n').find((l) => l.includes('listening on'));
  expect(line !== undefined, 'no "listening on" line in the logs');
  const port = new URL(s.url).port;
  expect(line.includes(`0.0.0.0:${port}`), `the banner hides the wildcard address: ${line}`);
  return line.trim();
}

async function notRoot(s: Service): Promise<string> {
  const uid = await dockerOk(['exec', s.name, 'id', '-u']);
  const user = await inspect(s.name, '{{.Config.User}}');
  expect(uid !== '0', 'the service runs as root');
  const pid1 = await dockerOk(['exec', s.name, 'sh', '-c', 'stat -c %u /proc/1']);
  expect(pid1 !== '0', 'PID 1 belongs to root');
  return `uid ${uid} (${user}), PID 1 owned by uid ${pid1}`;
}

async function readOnly(s: Service): Promise<string> {
  expect((await inspect(s.name, '{{.HostConfig.ReadonlyRootfs}}')) === 'true', 'not started read-only');
  const app = await docker(['exec', s.name, 'sh', '-c', 'touch /app/probe']);
  expect(app.code !== 0 && /Read-only file system/.test(app.stderr), `/app was writable: ${app.stderr}`);
  const stored = await dockerOk(['exec', s.name, 'ls', '-A', '/data']);
  expect(stored.length > 0, '/data is empty: the store is elsewhere');
  const changed = (await dockerOk(['diff', s.name])).split('\n').filter(Boolean);
  expect(changed.length === 0, `the container layer changed: ${changed.join(', ')}`);
  return `/app refuses writes; /data holds ${stored.split('\n').join(', ')}; docker diff is empty`;
}

async function healthy(s: Service): Promise<string> {
  await until(
    'the health status "healthy"',
    async () => ((await inspect(s.name, '{{.State.Health.Status}}')) === 'healthy' ? true : undefined),
    90_000,
    500,
  );
  const started = Date.parse(await inspect(s.name, '{{.State.StartedAt}}'));
  return `healthy, ${seconds(Date.now() - started)} after the container started (checks every 10 s)`;
}

async function metricsGuarded(run: CheckRun, s: Service): Promise<string> {
  const bare = await call(s.metricsUrl, undefined);
  expect(bare.status === 401, `a scrape without a token got ${bare.status}`);
  const wrong = await call(s.metricsUrl, 'not-the-metrics-token-at-all');
  expect(wrong.status === 401, `a scrape with a wrong token got ${wrong.status}`);
  const scraped = await call(s.metricsUrl, run.metricsToken);
  expect(
    scraped.status === 200 && String(scraped.body).includes('# TYPE'),
    `the right token got ${scraped.status}`,
  );
  return 'no token 401, wrong token 401, the token 200';
}

/** Streams a pass-through upload slowly; `docker stop` lands after its first piece. */
async function drainsOnStop(run: CheckRun, s: Service, token: string): Promise<string> {
  // 200 Accounts in one sObject Collections create: about 400 KB, sent in 8 pieces a quarter second apart.
  const records = Array.from({ length: 200 }, (_, i) => ({
    attributes: { type: 'Account' },
    Name: `${run.prefix}-drain-${i}`,
    Description: 'd'.repeat(2000),
  }));
  const body = Buffer.from(JSON.stringify({ allOrNone: false, records }));
  const pieces = 8;
  const piece = Math.ceil(body.length / pieces);
  const url = new URL(`${s.url}/v1/proxy/services/data/v62.0/composite/sobjects`);
  const req = request(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-length': body.length,
    },
  });
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
  });
  req.write(body.subarray(0, piece));
  const stopStarted = Date.now();
  const stopped = docker(['stop', '-t', String(STOP_GRACE_S), s.name], {
    timeoutMs: (STOP_GRACE_S + 20) * 1000,
  });
  // The stop has landed once the service takes no new request (503 from /readyz, or refused).
  await until('the service to start draining', async () => {
    const ready = await call(`${s.url}/readyz`, undefined).catch(() => ({ status: 0 }));
    return ready.status === 200 ? undefined : true;
  });
  for (let i = 1; i < pieces; i++) {
    await new Promise((r) => setTimeout(r, 250));
    req.write(body.subarray(i * piece, (i + 1) * piece));
  }
  req.end();
  const answered = await answer;
  const stopRan = await stopped;
  const stopMs = Date.now() - stopStarted;
  const exit = await inspect(s.name, '{{.State.ExitCode}}');
  expect(answered.status === 200, `the upload got ${answered.status}: ${answered.text.slice(0, 300)}`);
  const saved = (JSON.parse(answered.text) as Array<{ success: boolean }>).filter((r) => r.success).length;
  expect(saved === records.length, `${saved} of ${records.length} records saved`);
  expect(stopRan.code === 0, `docker stop failed: ${stopRan.stderr}`);
  expect(exit === '0', `the service exited with ${exit}`);
  expect(stopMs < STOP_GRACE_S * 1000, `the stop took ${seconds(stopMs)}`);
  return `a ${body.length}-byte upload sent during the drain answered 200, ${saved} records saved; exit 0 after ${seconds(stopMs)}`;
}
