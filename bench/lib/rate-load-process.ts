// Open-loop load at a fixed rate, in its own process (wrk2 is not packaged in Debian, and
// autocannon's histogram keeps whole milliseconds, too coarse for a sub-millisecond difference).
// Requests start on a fixed schedule whatever the answers do (open loop: a slow answer does not
// delay the next request), so each latency, measured from its send, is not hidden by the schedule.
// `late` counts requests sent more than 5 ms behind schedule (the generator itself starved of CPU).
// Reads {url, method, headers, body?, rate, seconds, connections} as JSON on stdin; prints the result as JSON.
import { Pool } from 'undici';

interface Options {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  rate: number;
  seconds: number;
  connections: number;
}

let input = '';
process.stdin.on('data', (d) => (input += String(d)));
process.stdin.on('end', () => void main(JSON.parse(input) as Options));

async function main(o: Options): Promise<void> {
  const url = new URL(o.url);
  const pool = new Pool(url.origin, { connections: o.connections, pipelining: 1 });
  const path = url.pathname + url.search;
  const total = Math.round(o.rate * o.seconds);
  const latencies: number[] = [];
  let errors = 0;
  let unexpected = 0;
  const one = async () => {
    const sent = performance.now();
    try {
      const res = await pool.request({ path, method: o.method, headers: o.headers, body: o.body ?? null });
      await res.body.dump();
      latencies.push(performance.now() - sent);
      if (res.statusCode >= 400) unexpected++;
    } catch {
      errors++;
    }
  };
  const start = performance.now();
  const inFlight: Promise<void>[] = [];
  let sent = 0;
  let late = 0;
  // Each tick sends every request whose time has come (timers are not finer than about 1 ms).
  while (sent < total) {
    const now = performance.now();
    while (sent < total && start + (sent * 1000) / o.rate <= now) {
      if (now - (start + (sent * 1000) / o.rate) > 5) late++;
      inFlight.push(one());
      sent++;
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
  await pool.close();
  process.stdout.write(
    JSON.stringify({
      requestsPerSecond: latencies.length / elapsed,
      requests: latencies.length,
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      errors,
      unexpectedStatus: unexpected,
      late,
    }),
  );
}
