// A provider's own settings, declared as data in its folder (`providers/<crm>/settings.ts`): a TypeBox
// object whose every property names its environment variable (`env`) and says, after that name, what
// a wrong value is (`problem`). loadConfig reads the declaration of every registered provider; the
// config's promise holds for them too: every problem at once, by variable name, never the value.
import { type StaticDecode, type TObject, type TSchema, type TSchemaOptions, Type } from 'typebox';
import Value from 'typebox/value';
import type { ConfigProblems } from './error.ts';
import { type Env, str } from './read.ts';

/** What each property of a settings declaration carries besides its JSON Schema. */
export interface VariableOptions extends TSchemaOptions {
  /** The environment variable it is read from. */
  env: string;
  /** What a wrong value is, after the variable's name ("must look like 62.0"); never the value. */
  problem: string;
  /** A CRM URL: with NODE_ENV=production it must be https unless CRM_PROXY_ALLOW_PLAIN_HTTP_CRM is set. */
  crmUrl?: boolean;
  /** A JSON Schema default, as the variable would hold it (the text form for lists and URLs). */
  default?: unknown;
}

/** A provider's settings declaration; its parsed value is `StaticDecode<typeof settings>`. */
export type SettingsDeclaration = TObject;

/** What loadConfig needs of a provider module: its id and its settings declaration. */
export interface SettingsSource {
  readonly profile: { readonly id: string };
  readonly settings: SettingsDeclaration;
}

/** An absolute http(s) URL, trailing slashes dropped (`https://login.salesforce.com/` → `…com`). */
export function httpUrl(options: VariableOptions) {
  const text = Type.Refine(Type.String(options), (value: string) => {
    if (!URL.canParse(value)) return false;
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  });
  return Type.Decode(text, (value: string) => value.replace(/\/+$/, ''));
}

/** OAuth scope names separated by spaces or commas, as a list. */
export function scopeList(options: VariableOptions) {
  const scope = '[A-Za-z0-9._-]{1,100}';
  const text = Type.String({
    ...options,
    pattern: `^[\\s,]*(${scope}([\\s,]+${scope})*)?[\\s,]*$`,
  });
  return Type.Decode(text, (value: string): readonly string[] =>
    value.split(/[\s,]+/).filter((x) => x !== ''),
  );
}

/** The variables a declaration reads, in its order (for messages and docs). */
export function variablesOf(declaration: SettingsDeclaration): string[] {
  return Object.values(declaration.properties).map((p) => (p as TSchema & VariableOptions).env);
}

/** The text of a variable as the property's schema expects it: numbers as numbers, the rest as text. */
function candidate(schema: TSchema, text: string): unknown {
  const type = (schema as { type?: unknown }).type;
  return type === 'number' || type === 'integer' ? Number(text) : text;
}

export interface ReadSettings<T extends SettingsDeclaration> {
  value: StaticDecode<T>;
  /** The CRM URLs that were set, by variable name (for the production check). */
  crmUrls: Record<string, string>;
}

/**
 * One provider's settings from the environment. Each property is checked on its own, so every bad
 * variable is recorded in `problems`; unset ones take their default, or stay undefined when optional.
 */
export function readSettings<T extends SettingsDeclaration>(
  declaration: T,
  env: Env,
  problems: ConfigProblems,
): ReadSettings<T> {
  const value: Record<string, unknown> = {};
  const crmUrls: Record<string, string> = {};
  const required = new Set(declaration.required ?? []);
  for (const [key, property] of Object.entries(declaration.properties)) {
    const schema = property as TSchema & VariableOptions;
    if (typeof schema.env !== 'string' || typeof schema.problem !== 'string')
      throw new Error(`setting ${key} must name its variable (env) and what a wrong value is (problem)`);
    const text = str(env, schema.env);
    const raw = text === undefined ? schema.default : candidate(schema, text);
    if (raw === undefined) {
      if (required.has(key)) problems.add(`${schema.env} is not set; it ${schema.problem}`);
      continue;
    }
    if (!Value.Check(schema, raw)) {
      problems.add(`${schema.env} ${schema.problem}`);
      continue;
    }
    value[key] = Value.Decode(schema, raw);
    if (schema.crmUrl === true && text !== undefined) crmUrls[schema.env] = value[key] as string;
  }
  return { value: value as StaticDecode<T>, crmUrls };
}
