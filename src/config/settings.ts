// Settings as data: each a TypeBox schema naming its environment variable (`env`), its default, its
// bounds and, after the variable's name, what a wrong value is (`problem`). The service declares its
// own (service.ts), each CRM its own (`providers/<crm>/settings.ts`); one reader turns an environment
// into a declaration's typed value, every problem at once.
import { type StaticDecode, type TObject, type TSchema, type TSchemaOptions, Type } from 'typebox';
import Value from 'typebox/value';

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

/** What each setting carries besides its JSON Schema (its checks, and its `default` as text would give it). */
export interface VariableOptions extends TSchemaOptions {
  /** The environment variable it is read from. */
  env: string;
  /** What a wrong value is, after the variable's name ("must look like 62.0"); never the value. */
  problem: string;
  /** A CRM URL: with NODE_ENV=production it must be https unless CRM_PROXY_ALLOW_PLAIN_HTTP_CRM is set. */
  crmUrl?: boolean;
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

/** An absolute http(s) URL, trailing slashes dropped (`https://login.salesforce.com/` → `…com`). */
export function httpUrl(options: Extra & { env: string }) {
  const url = Type.Refine(Type.String({ problem: 'must be an absolute http(s) URL', ...options }), (v) => {
    if (!URL.canParse(v)) return false;
    const { protocol } = new URL(v);
    return protocol === 'http:' || protocol === 'https:';
  });
  return Type.Decode(url, (value: string) => value.replace(/\/+$/, ''));
}

const isGroup = (schema: TSchema): schema is TObject =>
  !('env' in schema) && (schema as { type?: unknown }).type === 'object';

/** The text of a variable as its schema expects it: a number, a boolean, a lower-case choice, or text. */
function candidate(schema: TSchema, text: string): unknown {
  const { type, enum: choices } = schema as { type?: unknown; enum?: unknown };
  if (type === 'number' || type === 'integer') return Number(text);
  if (type === 'boolean') {
    const word = text.toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(word)) return true;
    return ['0', 'false', 'no', 'off'].includes(word) ? false : text;
  }
  return Array.isArray(choices) ? text.toLowerCase() : text;
}

/** What reading finds besides the value: every problem, and the CRM URLs set (for the production check). */
export type Findings = { problems: string[]; crmUrls: Record<string, string> };

/**
 * A declaration's value from the environment. Each setting is checked on its own, so every bad
 * variable is recorded in `findings`; unset ones take their default, or stay absent when optional.
 */
export function readSettings<T extends SettingsDeclaration>(
  declaration: T,
  env: Env,
  findings: Findings,
): StaticDecode<T> {
  const value: Record<string, unknown> = {};
  const required = new Set(declaration.required ?? []);
  for (const [key, property] of Object.entries(declaration.properties)) {
    if (isGroup(property)) value[key] = readSettings(property, env, findings);
    if (isGroup(property)) continue;
    const schema = property as TSchema & VariableOptions;
    if (typeof schema.env !== 'string' || typeof schema.problem !== 'string')
      throw new Error(`setting ${key} must name its variable (env) and what a wrong value is (problem)`);
    const text = env[schema.env]?.trim() || undefined;
    const raw = text === undefined ? schema.default : candidate(schema, text);
    if (raw === undefined) {
      if (required.has(key)) findings.problems.push(`${schema.env} is not set; it ${schema.problem}`);
    } else if (!Value.Check(schema, raw)) {
      findings.problems.push(`${schema.env} ${schema.problem}`);
    } else {
      value[key] = Value.Decode(schema, raw);
      if (schema.crmUrl === true && text !== undefined) findings.crmUrls[schema.env] = value[key] as string;
    }
  }
  return value as StaticDecode<T>;
}
