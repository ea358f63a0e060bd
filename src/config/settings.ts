// Settings as data: each a TypeBox schema naming its variable (`env`), default, bounds and what a
// wrong value is (`problem`); one reader checks them with env-schema (Ajv) into a typed value.
import envSchema from 'env-schema';
import { type StaticDecode, type TObject, type TSchema, type TSchemaOptions, Type } from 'typebox';

/** A bad or unsafe configuration: every problem found, each naming its variable, never its value. */
export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(...problems: string[]) {
    const list = problems.map((p) => `  - ${p}`).join('\n');
    super(problems.length === 1 ? problems[0] : `${problems.length} configuration problems:\n${list}`);
    this.name = 'ConfigError';
    this.problems = problems;
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
  /** Turns the checked value into the setting's own (hours into ms), adding what it refuses to `problems`. */
  decode?: (value: never, problems: string[]) => unknown;
}
type Extra = Partial<VariableOptions>;

/** An object of settings, or of groups of settings. */
export type SettingsDeclaration = TObject;

// The kinds of setting, each wording its own problem; a `fallback` of undefined is no default.
export const whole = (
  env: string,
  fallback: number | undefined,
  min: number,
  max: number,
  unit: string,
  problem = `must be a whole number of ${unit} from ${min} to ${max}`,
) => Type.Integer({ env, default: fallback, minimum: min, maximum: max, problem });
export const port = (env: string, fallback?: number) =>
  whole(env, fallback, 0, 65535, 'ports', 'must be a port number (0-65535)');
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
export const decoded = <T>(schema: TSchema, decode: (value: never, problems: string[]) => T) =>
  Type.Unsafe<T>({ ...schema, decode });

/** An absolute URL (http(s) unless `pattern` says otherwise), trailing slashes dropped. */
export const absoluteUrl = (options: Extra & { env: string }) =>
  Type.String({
    problem: 'must be an absolute http(s) URL',
    pattern: '^https?://',
    check: (v: string) => URL.canParse(v),
    decode: (v: string) => v.replace(/\/+$/, ''),
    ...options,
  });

/** Each setting's JSON Schema for env-schema, made once so that Ajv compiles it once. */
const schemas = new WeakMap<VariableOptions, object>();

/** A variable's text checked and coerced (env-schema, then the setting's check); undefined when refused. */
function parse(setting: VariableOptions, text: string): unknown {
  if (!schemas.has(setting)) {
    const { env, problem, crmUrl, check, decode, ...json } = setting;
    schemas.set(setting, { type: 'object', properties: { [env]: json } });
  }
  const word = setting.type === 'boolean' || setting.enum !== undefined ? text.toLowerCase() : text;
  // Ajv coerces only `true` and `false` into a flag.
  const flag = /^(1|yes|on)$/.test(word) ? 'true' : /^(0|no|off)$/.test(word) ? 'false' : word;
  try {
    const data = { [setting.env]: setting.type === 'boolean' ? flag : word };
    const value: unknown = envSchema({ schema: schemas.get(setting), data, env: false })[setting.env];
    return setting.check?.(value as never) === false ? undefined : value;
  } catch (err) {
    // Only a refused value has `errors`; anything else is the declaration's mistake.
    if ((err as { errors?: unknown }).errors === undefined) throw err;
    return undefined;
  }
}

/** A declaration's value, each bad variable added to `problems`; `httpsOnly` refuses a plain-http CRM URL. */
export function readSettings<T extends SettingsDeclaration>(
  declaration: T,
  env: NodeJS.ProcessEnv,
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
    const raw = text === undefined ? s.default : parse(s, text);
    if (raw !== undefined) value[key] = s.decode === undefined ? raw : s.decode(raw as never, problems);
    if (raw === undefined && text !== undefined) problems.push(`${s.env} ${s.problem}`);
    else if (raw === undefined && declaration.required?.includes(key))
      problems.push(`${s.env} is not set; it ${s.problem}`);
    else if (s.crmUrl === true && httpsOnly && text !== undefined && new URL(text).protocol === 'http:')
      problems.push(
        `${s.env} is a plain http:// URL: with NODE_ENV=production a CRM is reached over https only. Use an https:// URL, or set CRM_PROXY_ALLOW_PLAIN_HTTP_CRM=true if the CRM sits on a private network you trust.`,
      );
  }
  return value as StaticDecode<T>;
}
