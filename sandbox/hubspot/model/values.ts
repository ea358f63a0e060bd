import type { Portal } from './portal.ts';
import type { ObjectTypeDefinition, PropertyDefinition } from './types.ts';

/** One rejected property value, in the terms of HubSpot's `Property values were not valid` answer. */
export interface PropertyValueError {
  name: string;
  /** HubSpot's code: PROPERTY_DOESNT_EXIST, INVALID_OPTION, INVALID_INTEGER, INVALID_DATE, … */
  code: string;
  message: string;
}

export type ValuesResult =
  | { ok: true; values: Record<string, string> }
  | { ok: false; errors: PropertyValueError[] };

const MIDNIGHT_MS = 86_400_000;

/** Pipeline and stage properties take their allowed values from the pipelines, not from static options. */
const PIPELINE_PROPERTIES: Record<string, { pipeline: string; stage: string }> = {
  '0-3': { pipeline: 'pipeline', stage: 'dealstage' },
  '0-5': { pipeline: 'hs_pipeline', stage: 'hs_pipeline_stage' },
};

/** Checks a pipeline or stage value against the portal's pipelines; `undefined` when the property is neither. */
function pipelineValue(
  portal: Portal,
  type: ObjectTypeDefinition,
  name: string,
  text: string,
  input: Record<string, unknown>,
  current: Readonly<Record<string, string>> | undefined,
): { value: string } | { error: PropertyValueError } | undefined {
  const pp = PIPELINE_PROPERTIES[type.objectTypeId];
  if (pp === undefined || (name !== pp.pipeline && name !== pp.stage) || text === '') return undefined;
  if (name === pp.pipeline) {
    const pipeline = portal.pipelines.get(type.objectTypeId, text);
    if (pipeline === undefined || pipeline.archived) {
      return fail(
        name,
        'INVALID_OPTION',
        `${text} was not one of the allowed options: [${portal.pipelines
          .list(type.objectTypeId)
          .map((p) => p.id)
          .join(', ')}]`,
      );
    }
    return { value: text };
  }
  const inPipeline = input[pp.pipeline] ?? current?.[pp.pipeline];
  const pipelineId = typeof inPipeline === 'string' && inPipeline !== '' ? inPipeline : undefined;
  if (!portal.pipelines.hasStage(type.objectTypeId, text, pipelineId)) {
    return fail(
      name,
      'INVALID_OPTION',
      `${text} is not a valid stage${pipelineId !== undefined ? ` of pipeline ${pipelineId}` : ''}`,
    );
  }
  return { value: text };
}

/** Epoch-ms string or number, or ISO text, to a Date; undefined when neither. */
export function parseInstant(raw: string): Date | undefined {
  if (/^-?\d+$/.test(raw)) return new Date(Number(raw));
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw)) return undefined;
  const d = new Date(raw);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

function fail(name: string, code: string, message: string): { error: PropertyValueError } {
  return { error: { name, code, message } };
}

/**
 * Converts one input value to the string HubSpot stores and returns, following the property's
 * type: numbers and booleans become their text, datetimes ISO with milliseconds, dates
 * `YYYY-MM-DD` (HubSpot accepts epoch ms at midnight UTC for them), `""` clears any property.
 */
export function normalizeValue(
  def: Readonly<PropertyDefinition>,
  raw: unknown,
): { value: string } | { error: PropertyValueError } {
  const name = def.name;
  if (raw === null || raw === '') return { value: '' };
  if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
    return fail(
      name,
      'INVALID_PROPERTY_VALUE',
      `${JSON.stringify(raw)} is not a valid value for property "${name}"`,
    );
  }
  const text = String(raw);
  // Since 2025 HubSpot rejects non-string values with surrounding whitespace instead of trimming them.
  if (def.type !== 'string' && def.type !== 'phone_number' && text !== text.trim()) {
    return fail(name, 'LEADING_TRAILING_WHITESPACE', `${text} has leading or trailing whitespace`);
  }
  switch (def.type) {
    case 'number': {
      const n = Number(text);
      if (text.trim() === '' || !Number.isFinite(n)) {
        return fail(name, 'INVALID_INTEGER', `${text} is not a valid number value for property "${name}"`);
      }
      return { value: typeof raw === 'number' ? String(raw) : text };
    }
    case 'bool': {
      const v = text.toLowerCase();
      if (v !== 'true' && v !== 'false') {
        return fail(name, 'INVALID_BOOLEAN', `${text} is not a valid boolean value for property "${name}"`);
      }
      return { value: v };
    }
    case 'datetime': {
      const d = parseInstant(text);
      if (d === undefined)
        return fail(name, 'INVALID_DATE', `${text} is not a valid datetime for property "${name}"`);
      return { value: d.toISOString() };
    }
    case 'date': {
      if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return { value: text };
      const d = parseInstant(text);
      if (d === undefined)
        return fail(name, 'INVALID_DATE', `${text} is not a valid date for property "${name}"`);
      if (d.getTime() % MIDNIGHT_MS !== 0) {
        return fail(
          name,
          'INVALID_DATE',
          // Live text, e.g. "1570233600 is at 4:10:33.600 UTC, not midnight!" (hour not zero-padded).
          `${text} is at ${d.getUTCHours()}:${d.toISOString().slice(14, 23)} UTC, not midnight!`,
        );
      }
      return { value: d.toISOString().slice(0, 10) };
    }
    case 'enumeration': {
      if (def.externalOptions === true || def.options.length === 0) return { value: text };
      const allowed = new Set(def.options.map((o) => o.value));
      const parts = def.fieldType === 'checkbox' ? text.replace(/^;/, '').split(';') : [text];
      const bad = parts.find((p) => !allowed.has(p));
      if (bad !== undefined) {
        const list = def.options.map((o) => o.value).join(', ');
        return fail(name, 'INVALID_OPTION', `${bad} was not one of the allowed options: [${list}]`);
      }
      return { value: text };
    }
    default:
      return { value: text };
  }
}

/**
 * Validates and normalises the `properties` of a create or update. Unknown names fail with
 * PROPERTY_DOESNT_EXIST, read-only values with READ_ONLY_VALUE; every failing property is reported.
 * A leading `;` on a multi-select appends to the current value (HubSpot's documented behaviour).
 */
export function validateValues(
  portal: Portal,
  type: ObjectTypeDefinition,
  input: Record<string, unknown>,
  current?: Readonly<Record<string, string>>,
): ValuesResult {
  const values: Record<string, string> = {};
  const errors: PropertyValueError[] = [];
  for (const [name, raw] of Object.entries(input)) {
    const def = portal.properties.peek(type.objectTypeId, name);
    if (def === undefined || def.archived === true) {
      errors.push({ name, code: 'PROPERTY_DOESNT_EXIST', message: `Property "${name}" does not exist` });
      continue;
    }
    if (def.modificationMetadata?.readOnlyValue === true || def.calculated === true) {
      // HubSpot lets the identity id through when it matches; anything else read-only is refused.
      if (name === 'hs_object_id') continue;
      errors.push({
        name,
        code: 'READ_ONLY_VALUE',
        message: `Property "${name}" is a read only property; its value cannot be set.`,
      });
      continue;
    }
    const viaPipeline =
      typeof raw === 'string' || typeof raw === 'number'
        ? pipelineValue(portal, type, name, String(raw), input, current)
        : undefined;
    const r = viaPipeline ?? normalizeValue(def, raw);
    if ('error' in r) {
      errors.push(r.error);
      continue;
    }
    let value = r.value;
    if (def.fieldType === 'checkbox' && typeof raw === 'string' && raw.startsWith(';')) {
      const existing = current?.[name] ?? '';
      value = existing === '' ? value.replace(/^;/, '') : `${existing}${value}`;
    }
    values[name] = value;
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, values };
}
