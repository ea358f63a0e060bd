import { picklist } from '../org/fields.ts';
import type { FieldSpec } from '../org/index.ts';

/** A Tooling/Metadata API error: `[{"message", "errorCode", "fields"}]` with HTTP 400. */
export interface ToolingError {
  errorCode: string;
  message: string;
  fields: string[];
}

export type SpecResult = { ok: true; spec: FieldSpec } | { ok: false; error: ToolingError };

/** Metadata `type` values this emulator accepts (Metadata API CustomField `FieldType`). */
export const FIELD_TYPES = [
  'Text',
  'TextArea',
  'LongTextArea',
  'Html',
  'Number',
  'Currency',
  'Percent',
  'Checkbox',
  'Date',
  'DateTime',
  'Time',
  'Email',
  'Phone',
  'Url',
  'Picklist',
  'MultiselectPicklist',
  'Lookup',
  'EncryptedText',
  'AutoNumber',
] as const;
export type MetadataType = (typeof FIELD_TYPES)[number];

const integrity = (message: string): SpecResult => ({
  ok: false,
  error: { errorCode: 'FIELD_INTEGRITY_EXCEPTION', message, fields: [] },
});
const must = (key: string, type: string) =>
  integrity(`Must specify '${key}' for a CustomField of type ${type}`);

const num = (v: unknown): number | undefined => {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  return undefined;
};
const bool = (v: unknown): boolean => v === true || v === 'true';

interface PicklistValue {
  fullName: string;
  default: boolean;
  label?: string;
}

function valueSetValues(meta: Record<string, unknown>): PicklistValue[] | null {
  const vs = meta.valueSet;
  if (typeof vs !== 'object' || vs === null) return null;
  const def = (vs as Record<string, unknown>).valueSetDefinition;
  const values = typeof def === 'object' && def !== null ? (def as Record<string, unknown>).value : undefined;
  if (!Array.isArray(values)) return null;
  const out: PicklistValue[] = [];
  for (const v of values) {
    if (typeof v !== 'object' || v === null || typeof (v as Record<string, unknown>).fullName !== 'string')
      return null;
    const r = v as Record<string, unknown>;
    out.push({
      fullName: r.fullName as string,
      default: bool(r.default),
      ...(typeof r.label === 'string' ? { label: r.label } : {}),
    });
  }
  return out;
}

/**
 * Checks a CustomField's Metadata the way the Metadata API does for each type, and maps it to the
 * describe the field will have. Texts: "Must specify 'defaultValue' for a CustomField of type
 * Checkbox" is Salesforce's own; the other messages follow its pattern (not all confirmed).
 */
export function fieldSpecFromMetadata(name: string, meta: Record<string, unknown>): SpecResult {
  const type = meta.type;
  if (typeof type !== 'string') return must('type', 'CustomField');
  if (!(FIELD_TYPES as readonly string[]).includes(type)) {
    return {
      ok: false,
      error: {
        errorCode: 'JSON_PARSER_ERROR',
        message: `Cannot deserialize instance of FieldType from VALUE_STRING value ${type} or request may be missing a required field`,
        fields: [],
      },
    };
  }
  const label = meta.label;
  if (typeof label !== 'string' || label.trim() === '') {
    return {
      ok: false,
      error: {
        errorCode: 'REQUIRED_FIELD_MISSING',
        message: 'Required fields are missing: [label]',
        fields: ['label'],
      },
    };
  }
  if (label.length > 40) return integrity('Field label: data value too large (max length=40)');
  const common: Partial<FieldSpec> = {
    label,
    nillable: !bool(meta.required),
    // Required fields take no field-level security (they are always visible and editable).
    permissionable: !bool(meta.required),
    inlineHelpText: typeof meta.inlineHelpText === 'string' ? meta.inlineHelpText : null,
    externalId: bool(meta.externalId),
    unique: bool(meta.unique),
    caseSensitive: bool(meta.caseSensitive),
    ...(bool(meta.externalId) || bool(meta.unique) ? { idLookup: true } : {}),
  };
  const spec = (s: Partial<FieldSpec> & Pick<FieldSpec, 'type'>): SpecResult => ({
    ok: true,
    spec: { name, ...common, ...s },
  });
  const length = num(meta.length);
  const precision = num(meta.precision);
  const scale = num(meta.scale) ?? 0;
  const visibleLines = num(meta.visibleLines);

  switch (type as MetadataType) {
    case 'Text':
      if (length === undefined) return must('length', type);
      if (length < 1 || length > 255) return integrity('Length must be between 1 and 255');
      return spec({ type: 'string', length });
    case 'TextArea':
      return spec({ type: 'textarea', length: 255, filterable: true, sortable: false, groupable: false });
    case 'LongTextArea':
    case 'Html': {
      if (length === undefined) return must('length', type);
      if (length < 256 || length > 131_072) return integrity('Length must be between 256 and 131072');
      if (visibleLines === undefined) return must('visibleLines', type);
      const html = type === 'Html';
      return spec({
        type: 'textarea',
        length,
        extraTypeInfo: html ? 'richtextarea' : 'plaintextarea',
        htmlFormatted: html,
        filterable: false,
        sortable: false,
        groupable: false,
        nillable: true,
      });
    }
    case 'Number':
    case 'Currency':
    case 'Percent': {
      if (precision === undefined) return must('precision', type);
      if (precision < 1 || precision > 18) return integrity('Precision must be between 1 and 18');
      if (scale < 0 || scale > precision) return integrity('Scale must be between 0 and the precision');
      const t = type === 'Number' ? 'double' : type === 'Currency' ? 'currency' : 'percent';
      return spec({ type: t, precision, scale });
    }
    case 'Checkbox': {
      const d = meta.defaultValue;
      if (d === undefined || d === null || d === '') return must('defaultValue', type);
      if (!['true', 'false', true, false].includes(d as string | boolean))
        return integrity(`Invalid defaultValue for a Checkbox: ${String(d)}`);
      return spec({
        type: 'boolean',
        defaultValue: bool(d),
        nillable: false,
        defaultedOnCreate: true,
        groupable: true,
      });
    }
    case 'Date':
      return spec({ type: 'date' });
    case 'DateTime':
      return spec({ type: 'datetime' });
    case 'Time':
      return spec({ type: 'time' });
    case 'Email':
      return spec({ type: 'email', length: 80 });
    case 'Phone':
      return spec({ type: 'phone', length: 40 });
    case 'Url':
      return spec({ type: 'url', length: 255 });
    case 'Picklist':
    case 'MultiselectPicklist': {
      const values = valueSetValues(meta);
      if (values === null || values.length === 0) return must('valueSet', type);
      if (type === 'MultiselectPicklist' && visibleLines === undefined) return must('visibleLines', type);
      const seen = new Set<string>();
      for (const v of values) {
        if (seen.has(v.fullName.toLowerCase())) return integrity(`Duplicate picklist value: ${v.fullName}`);
        seen.add(v.fullName.toLowerCase());
      }
      const restricted = bool((meta.valueSet as Record<string, unknown>).restricted);
      const entries = picklist(
        values.map((v) => v.fullName),
        values.find((v) => v.default)?.fullName,
      ).map((e, i) => ({ ...e, label: values[i]?.label ?? e.label }));
      return spec({
        type: type === 'Picklist' ? 'picklist' : 'multipicklist',
        length: type === 'Picklist' ? 255 : 4099,
        picklistValues: entries,
        restrictedPicklist: restricted,
        defaultedOnCreate: entries.some((e) => e.defaultValue),
      });
    }
    case 'Lookup': {
      const to = meta.referenceTo;
      if (typeof to !== 'string' || to === '') return must('referenceTo', type);
      const rel = meta.relationshipName;
      if (typeof rel !== 'string' || rel === '') return must('relationshipName', type);
      return spec({ type: 'reference', length: 18, referenceTo: [to], relationshipName: `${rel}__r` });
    }
    case 'EncryptedText':
      if (length === undefined) return must('length', type);
      if (length < 1 || length > 175) return integrity('Length must be between 1 and 175');
      return spec({
        type: 'encryptedstring',
        length,
        encrypted: true,
        filterable: false,
        sortable: false,
        groupable: false,
      });
    case 'AutoNumber':
      if (typeof meta.displayFormat !== 'string') return must('displayFormat', type);
      return spec({
        type: 'string',
        length: 30,
        autoNumber: true,
        createable: false,
        updateable: false,
        nillable: false,
      });
  }
}
