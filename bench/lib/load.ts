// Load generators in their own processes: wrk (Debian's /usr/bin/wrk) for a fixed number of
// connections, bench/lib/rate-load-process.ts for a fixed request rate (wrk2 is not packaged).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pinned } from './pin.ts';

export interface LoadResult {
  requestsPerSecond: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  /** Socket errors and timeouts. */
  errors: number;
  /** Answers whose status was not the expected one (wrk: not 2xx/3xx). */
  unexpectedStatus: number;
  /** Fixed-rate runs: requests sent more than 5 ms behind schedule (the generator starved of CPU). */
  late?: number;
}

export interface LoadCall {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | Buffer;
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(...pinned('other', command, args), { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (err += String(d)));
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new Error(`${command} is not installed (Debian: apt-get install ${command})`)
          : error,
      ),
    );
    child.once('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${command}: ${code}\n${err}`)),
    );
  });
}

const luaString = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** `wrk -t1 -cN -dS` with a Lua script for method, headers and body; JSON out of its done hook. */
export async function runWrk(call: LoadCall, connections: number, seconds: number): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'crm-proxy-wrk-'));
  try {
    const lines = [`wrk.method = ${luaString(call.method)}`];
    for (const [name, value] of Object.entries(call.headers))
      lines.push(`wrk.headers[${luaString(name)}] = ${luaString(value)}`);
    if (call.body !== undefined) {
      writeFileSync(join(dir, 'body'), call.body);
      lines.push(
        `local f = io.open(${luaString(join(dir, 'body'))}, "rb")`,
        'wrk.body = f:read("*a")',
        'f:close()',
      );
    }
    lines.push(
      'done = function(summary, latency, requests)',
      '  local e = summary.errors',
      '  io.write(string.format("\\nRESULT {\\"requests\\":%d,\\"durationUs\\":%d,\\"p50Us\\":%d,\\"p99Us\\":%d,\\"errors\\":%d,\\"status\\":%d}\\n",',
      '    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),',
      '    e.connect + e.read + e.write + e.timeout, e.status))',
      'end',
    );
    writeFileSync(join(dir, 'script.lua'), lines.join('\n'));
    const out = await run('wrk', [
      '-t1',
      `-c${connections}`,
      `-d${seconds}s`,
      '--timeout',
      '30s',
      '-s',
      join(dir, 'script.lua'),
      call.url,
    ]);
    const json = /RESULT (\{.*\})/.exec(out)?.[1];
    if (json === undefined) throw new Error(`wrk printed no result:\n${out}`);
    const r = JSON.parse(json) as {
      requests: number;
      durationUs: number;
      p50Us: number;
      p99Us: number;
      errors: number;
      status: number;
    };
    return {
      requestsPerSecond: r.requests / (r.durationUs / 1e6),
      requests: r.requests,
      p50Ms: r.p50Us / 1000,
      p99Ms: r.p99Us / 1000,
      errors: r.errors,
      unexpectedStatus: r.status,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** bench/lib/rate-load-process.ts: a fixed request rate, for the latency at a given load rather than at saturation. */
export async function runAtRate(
  call: LoadCall,
  rate: number,
  connections: number,
  seconds: number,
): Promise<LoadResult> {
  const child = spawn(...pinned('other', process.execPath, ['bench/lib/rate-load-process.ts']), {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.stdin.end(
    JSON.stringify({
      ...call,
      body: call.body === undefined ? undefined : String(call.body),
      rate,
      seconds,
      connections,
    }),
  );
  const code = await exited;
  if (code !== 0) throw new Error(`rate load generator exited with ${code}`);
  return JSON.parse(out) as LoadResult;
}
