// What the image check reports: each step's name, outcome, time and what it saw.
import { randomBytes } from 'node:crypto';

export interface StepResult {
  name: string;
  ok: boolean;
  ms: number;
  detail: string;
}

export const results: StepResult[] = [];

/** Runs one check; its returned string is what it saw. A failure is recorded, and thrown on when `fatal`. */
export async function step(name: string, run: () => Promise<string>, fatal = false): Promise<boolean> {
  const started = Date.now();
  try {
    const detail = await run();
    results.push({ name, ok: true, ms: Date.now() - started, detail });
    process.stdout.write(`✔ ${name} (${seconds(Date.now() - started)}): ${detail}\n`);
    return true;
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    results.push({ name, ok: false, ms: Date.now() - started, detail });
    process.stdout.write(`✖ ${name} (${seconds(Date.now() - started)}): ${detail}\n`);
    if (fatal) throw err;
    return false;
  }
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export function expect(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** Polls until `check` returns a value; throws naming `what` after `deadlineMs`. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  deadlineMs = 60_000,
  intervalMs = 200,
): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`gave up after ${seconds(deadlineMs)} waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** A fresh base64 key of 32 bytes, as `openssl rand -base64 32` makes. */
export function freshKey(): string {
  return randomBytes(32).toString('base64');
}

export async function call(
  url: string,
  token: string | undefined,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...init.headers,
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // Not JSON: kept as text.
  }
  return { status: response.status, body };
}
