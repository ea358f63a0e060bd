// Settings as data: each a TypeBox schema naming its environment variable (`env`), its default, its
// bounds and, after the variable's name, what a wrong value is (`problem`). The service declares its
// own (service.ts), each CRM its own (`providers/<crm>/settings.ts`); env-schema (Ajv) checks a whole
// declaration at once and one reader turns the result into the declaration's typed value.
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

/** What loadConfig needs of a provider module: its id and its settings declaration. */
export interface SettingsSource {
  readonly profile: { readonly id: string };
  readonly settings: SettingsDeclaration;
}

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

type Leaf = { path: string[]; schema: VariableOptions };
type Flat = { leaves: Leaf[]; schema: { type: 'object'; properties: object; required: string[] } };
const flatSchemas = new WeakMap<TObject, Flat>();

/** The declaration as env-schema checks it, one property per variable; built once (Ajv compiles it once). */
function flatSchemaOf(declaration: TObject): Flat {
  const cached = flatSchemas.get(declaration);
  if (cached !== undefined) return cached;
  const flat: Flat = { leaves: [], schema: { type: 'object', properties: {}, required: [] } };
  const walk = (group: TObject, path: string[]) => {
    for (const [key, property] of Object.entries(group.properties) as [string, TSchema & Extra][]) {
      if (!('env' in property) && property.type === 'object')
        walk(property as unknown as TObject, [...path, key]);
      else if (typeof property.env !== 'string' || typeof property.problem !== 'string')
        throw new Error(`setting ${key} must name its variable (env) and what a wrong value is (problem)`);
      else {
        const { env, problem, crmUrl, check, decode, ...json } = property as VariableOptions;
        flat.leaves.push({ path: [...path, key], schema: property as VariableOptions });
        Object.assign(flat.schema.properties, { [env]: json });
        if (group.required?.includes(key)) flat.schema.required.push(env);
      }
    }
  };
  walk(declaration, []);
  flatSchemas.set(declaration, flat);
  return flat;
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

/** What reading finds besides the value: every problem, and the CRM URLs set (for the production check). */
export type Findings = { problems: string[]; crmUrls: Record<string, string> };

/**
 * A declaration's value from the environment, checked whole so that every bad variable is recorded
 * in `findings`; unset ones take their default, or stay absent when optional.
 */
export function readSettings<T extends SettingsDeclaration>(
  declaration: T,
  env: Env,
  findings: Findings,
): StaticDecode<T> {
  const { leaves, schema } = flatSchemaOf(declaration);
  const data: Record<string, unknown> = {};
  const given = new Set<string>();
  for (const { schema: s } of leaves) {
    const text = env[s.env]?.trim();
    if (text) given.add(s.env);
    data[s.env] = text ? candidate(s, text) : s.default;
  }
  const bad = new Set<string>();
  try {
    envSchema({ schema, data, env: false });
  } catch (err) {
    for (const { params, instancePath } of (
      err as { errors: { instancePath: string; params: Record<string, string> }[] }
    ).errors)
      bad.add(params['missingProperty'] ?? instancePath.slice(1));
  }
  const value: Record<string, unknown> = {};
  for (const { path, schema: s } of leaves) {
    const group = path.slice(0, -1).reduce<Record<string, unknown>>((o, k) => {
      o[k] ??= {};
      return o[k] as Record<string, unknown>;
    }, value);
    const raw = data[s.env];
    if (bad.has(s.env) || (raw !== undefined && s.check?.(raw as never) === false))
      findings.problems.push(
        given.has(s.env) ? `${s.env} ${s.problem}` : `${s.env} is not set; it ${s.problem}`,
      );
    else if (raw !== undefined) {
      const setting = s.decode === undefined ? raw : s.decode(raw as never);
      group[path.at(-1) as string] = setting;
      if (s.crmUrl === true && given.has(s.env)) findings.crmUrls[s.env] = setting as string;
    }
  }
  return value as StaticDecode<T>;
}
