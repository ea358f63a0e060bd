// Settings as data: each a TypeBox schema naming its environment variable (`env`), its default, its
// bounds and, after the variable's name, what a wrong value is (`problem`). The service declares its
// own (service.ts), each CRM its own (`providers/<crm>/settings.ts`); one reader checks each setting
// with env-schema (Ajv) and its own check, and turns the declaration into its typed value.
import envSchema from 'env-schema';
import { type StaticDecode, type TObject, type TSchema, type TSchemaOptions, Type } from 'typebox';

/** The process environment, or a test's. */
export type Env = Record<string, string | undefined>;

/**
 * A bad or unsafe configuration: each problem names the variable, never its value. One error
 * carries every problem found, so an operator fixes them all in one go instead of one per start.
 */
export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(problems: string | readonly string[]) {
    const list = typeof problems === 'string' ? [problems] : [...problems];
    super(
      list.length === 1
        ? (list[0] ?? '')
        : `${list.length} configuration problems:\n${list.map((p) => `  - ${p}`).join('\n')}`,
    );
    this.name = 'ConfigError';
    this.problems = list;
  }
}

/** What each setting carries besides its JSON Schema. */
export interface VariableOptions extends TSchemaOptions {
  /** The environment variable it is read from. */
  env: string;
  /** What a wrong value is, after the variable's name ("must look like 62.0"); never the value. */
  problem: string;
  /** A CRM URL: with NODE_ENV=production it must be https unless CRM_PROXY_ALLOW_PLAIN_HTTP_CRM is set. */
  crmUrl?: boolean;
  /** A check JSON Schema cannot word (a parsable URL, a list of IP addresses). */
  check?: (value: never) => boolean;
  /** Turns the checked value into the setting's own (hours into ms, a list into an array). */
  decode?: (value: never) => unknown;
}
type Extra = Partial<VariableOptions>;

/** A declaration: an object of settings, or of groups of settings; its value is `StaticDecode<typeof it>`. */
export type SettingsDeclaration = TObject;

// The kinds of setting, each wording its own problem; a `fallback` of undefined is no default.
export const whole = (env: string, fallback: number | undefined, min: number, max: number, unit: string) =>
  Type.Integer({
    env,
    default: fallback,
    minimum: min,
    maximum: max,
    problem: `must be a whole number of ${unit} from ${min} to ${max}`,
  });
export const port = (env: string, fallback?: number) =>
  Type.Integer({
    env,
    default: fallback,
    minimum: 0,
    maximum: 65535,
    problem: 'must be a port number (0-65535)',
  });
/** `true`/`false`, also `1`/`0`, `yes`/`no`, `on`/`off`. */
export const flag = (env: string, fallback?: boolean) =>
  Type.Boolean({ env, default: fallback, problem: 'must be true or false' });
/** One of `values`, in any case. */
export const oneOf = <T extends string>(env: string, values: readonly T[], fallback: T) =>
  Type.Unsafe<T>(
    Type.String({ env, default: fallback, enum: values, problem: `must be one of ${values.join(', ')}` }),
  );
export const text = (env: string, fallback?: string, extra?: Extra) =>
  Type.String({ env, default: fallback, problem: 'must be text', ...extra });
/** A setting whose checked value `decode` turns into a `T`. */
export const decoded = <T>(schema: TSchema, decode: (value: never) => T) =>
  Type.Unsafe<T>({ ...schema, decode });

/** An absolute http(s) URL, trailing slashes dropped (`https://login.salesforce.com/` → `…com`). */
export const httpUrl = (options: Extra & { env: string }) =>
  Type.String({
    problem: 'must be an absolute http(s) URL',
    pattern: '^https?://',
    check: (v: string) => URL.canParse(v),
    decode: (v: string) => v.replace(/\/+$/, ''),
    ...options,
  });

/** Each setting's JSON Schema as env-schema checks it, made once so that Ajv compiles it once. */
const schemas = new WeakMap<VariableOptions, object>();

/** The setting's JSON Schema (env-schema, Ajv underneath) and its own check. */
function accepts(setting: VariableOptions, value: unknown): boolean {
  let schema = schemas.get(setting);
  if (schema === undefined) {
    const { env, problem, crmUrl, check, decode, ...json } = setting;
    schema = { type: 'object', properties: { [env]: json } };
    schemas.set(setting, schema);
  }
  try {
    envSchema({ schema, data: { [setting.env]: value }, env: false });
  } catch {
    return false;
  }
  return setting.check?.(value as never) !== false;
}

/** The text of a variable as its schema expects it: a boolean, a lower-case choice, a number, or text. */
function candidate(schema: VariableOptions, text: string): unknown {
  if (schema.type === 'number' || schema.type === 'integer') return Number(text);
  if (schema.type === 'boolean') {
    const word = text.toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(word)) return true;
    return ['0', 'false', 'no', 'off'].includes(word) ? false : text;
  }
  return Array.isArray(schema.enum) ? text.toLowerCase() : text;
}

/**
 * A declaration's value from the environment. Each variable set is checked on its own, so that every
 * bad one is added to `problems`; unset ones take their default (the declaration's own, not checked
 * again), or stay absent when optional. With
 * `httpsOnly` (NODE_ENV=production without CRM_PROXY_ALLOW_PLAIN_HTTP_CRM) a CRM URL set to plain
 * http is a problem too.
 */
export function readSettings<T extends SettingsDeclaration>(
  declaration: T,
  env: Env,
  problems: string[],
  httpsOnly = false,
): StaticDecode<T> {
  const value: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(declaration.properties) as [string, TSchema & Extra][]) {
    if (!('env' in property) && property.type === 'object') {
      value[key] = readSettings(property as unknown as TObject, env, problems, httpsOnly);
      continue;
    }
    const s = property as VariableOptions;
    if (typeof s.env !== 'string' || typeof s.problem !== 'string')
      throw new Error(`setting ${key} must name its variable (env) and what a wrong value is (problem)`);
    const text = env[s.env]?.trim() || undefined;
    const raw = text === undefined ? s.default : candidate(s, text);
    if (raw === undefined) {
      if (declaration.required?.includes(key)) problems.push(`${s.env} is not set; it ${s.problem}`);
    } else if (text !== undefined && !accepts(s, raw)) {
      problems.push(`${s.env} ${s.problem}`);
    } else {
      value[key] = s.decode === undefined ? raw : s.decode(raw as never);
      if (s.crmUrl === true && httpsOnly && text !== undefined && new URL(text).protocol === 'http:')
        problems.push(
          `${s.env} is a plain http:// URL: with NODE_ENV=production a CRM is reached over https only. Use an https:// URL, or set CRM_PROXY_ALLOW_PLAIN_HTTP_CRM=true if the CRM sits on a private network you trust.`,
        );
    }
  }
  return value as StaticDecode<T>;
}
