import { ConfigError } from './error.ts';
/** The process environment, or a test's. */
export type Env = Record<string, string | undefined>;

// Readers of one variable each: its value, its default, or a ConfigError naming it (never its value).

export function str(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === '' ? undefined : v;
}

export function bool(env: Env, name: string, fallback: boolean): boolean {
  const v = str(env, name)?.toLowerCase();
  if (v === undefined) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(`${name} must be true or false`);
}

export function port(env: Env, name: string, fallback: number): number {
  const v = str(env, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new ConfigError(`${name} must be a port number (0-65535)`);
  return n;
}

export function url(env: Env, name: string): string | undefined {
  const v = str(env, name);
  if (v === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new ConfigError(`${name} must be an http(s) URL`);
  return v.replace(/\/+$/, '');
}

/** A space- or comma-separated list of OAuth scopes; undefined when the variable is not set. */
export function scopes(env: Env, name: string): string[] | undefined {
  const v = str(env, name);
  if (v === undefined) return undefined;
  const list = v.split(/[\s,]+/).filter((x) => x !== '');
  if (list.some((x) => !/^[A-Za-z0-9._-]{1,100}$/.test(x)))
    throw new ConfigError(
      `${name} must be scope names separated by spaces (e.g. "oauth crm.objects.contacts.read")`,
    );
  return list;
}

export function hours(env: Env, name: string, fallback: number): number {
  const v = str(env, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || n > 720)
    throw new ConfigError(`${name} must be a number of hours above 0, at most 720 (30 days)`);
  return n;
}

export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const v = str(env, name)?.toLowerCase();
  if (v === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(v))
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}`);
  return v as T;
}

/** A whole number in [min, max] (unset or empty: `fallback`), else the variable's problem in words. */
export function wholeNumber(
  env: Env,
  name: string,
  fallback: number,
  min: number,
  max: number,
  unit: string,
): number {
  const v = env[name]?.trim();
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ConfigError(`${name} must be a whole number of ${unit} from ${min} to ${max}`);
  return n;
}
