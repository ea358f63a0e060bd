import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import type { ObjectMeta } from '../org/meta.ts';

export const DELIMITERS = {
  BACKQUOTE: '`',
  CARET: '^',
  COMMA: ',',
  PIPE: '|',
  SEMICOLON: ';',
  TAB: '\t',
} as const;
export type ColumnDelimiter = keyof typeof DELIMITERS;
export type LineEnding = 'LF' | 'CRLF';

export interface CsvFormat {
  columnDelimiter: ColumnDelimiter;
  lineEnding: LineEnding;
}

export interface ParsedCsv {
  header: string[];
  rows: string[][];
}

/**
 * Salesforce's answer when an upload's record separators do not match the job's `lineEnding`
 * (a CRLF file in an LF job, or an LF file in a CRLF job): the job fails with this message.
 * Only line breaks outside quotes count; one inside a quoted value is data, whatever its form.
 * Null when the data matches.
 */
export function lineEndingError(text: string, lineEnding: LineEnding): string | null {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 34 /* " */) quoted = !quoted;
    else if (ch === 10 /* \n */ && !quoted) {
      const crlf = i > 0 && text.charCodeAt(i - 1) === 13;
      if (crlf !== (lineEnding === 'CRLF')) {
        return `ClientInputError : LineEnding is invalid on user data. Current LineEnding setting is ${lineEnding}`;
      }
    }
  }
  return null;
}

/**
 * Parses uploaded job data. Bulk 2.0 checks the line ending first (`lineEndingError`). Values
 * are not trimmed (a space is data); a quoted value keeps its embedded line breaks. Throws on
 * malformed CSV (the caller fails the job).
 */
export function parseCsv(text: string, format: CsvFormat | 'auto', anyLineEnding = false): ParsedCsv {
  // Bulk 1.0 has no line-ending setting: LF and CRLF files both work there (and `anyLineEnding`
  // reads a Bulk 2.0 file whose line endings are not the job's, to list its rows as unprocessed).
  const lineEnding =
    format === 'auto' || anyLineEnding
      ? {}
      : { record_delimiter: format.lineEnding === 'CRLF' ? '\r\n' : '\n' };
  const rows = parse(text, {
    delimiter: format === 'auto' ? ',' : DELIMITERS[format.columnDelimiter],
    ...lineEnding,
    relax_column_count: true,
    skip_empty_lines: true,
    bom: true,
  }) as string[][];
  const [header, ...data] = rows;
  return { header: header ?? [], rows: data };
}

/**
 * Result files: every field quoted (`"sf__Id","sf__Created",...`), as real result files are,
 * in the job's delimiter and line ending.
 */
export function writeCsv(header: string[], rows: string[][], format: CsvFormat): string {
  if (header.length === 0) return '';
  return stringify([header, ...rows], {
    delimiter: DELIMITERS[format.columnDelimiter],
    record_delimiter: format.lineEnding === 'CRLF' ? 'windows' : 'unix',
    quoted: true,
    quoted_empty: true,
  });
}

/** How one uploaded column maps to the record handed to the kernel. */
export type Column =
  | { kind: 'field'; header: string }
  /** `Account.External_Id__c` or polymorphic `Account:Owner.Email`: a parent named by an indexed field. */
  | { kind: 'relationship'; header: string; relationship: string; field: string; type: string | null };

/** The columns of a header, or the first header that names nothing on the object. */
export function mapColumns(meta: ObjectMeta, header: string[]): { columns: Column[] } | { unknown: string } {
  const columns: Column[] = [];
  for (const h of header) {
    const dot = h.indexOf('.');
    if (dot < 0) {
      if (meta.field(h) === undefined) return { unknown: h };
      columns.push({ kind: 'field', header: h });
      continue;
    }
    const left = h.slice(0, dot);
    const colon = left.indexOf(':');
    const relationship = colon < 0 ? left : left.slice(colon + 1);
    if (meta.relationship(relationship) === undefined) return { unknown: h };
    columns.push({
      kind: 'relationship',
      header: h,
      relationship,
      field: h.slice(dot + 1),
      type: colon < 0 ? null : left.slice(0, colon),
    });
  }
  return { columns };
}

/**
 * One CSV row as the kernel's input record (values stay CSV strings; the kernel coerces them,
 * `#N/A` sets null, an empty cell is left out on update). A relationship column becomes the REST
 * form of an external-id reference, `{"Account": {"External_Id__c": "A-1"}}`; `#N/A` there clears
 * the lookup.
 */
export function rowToRecord(meta: ObjectMeta, columns: Column[], row: string[]): Record<string, unknown> {
  const rec: Record<string, unknown> = {};
  columns.forEach((c, i) => {
    const v = row[i] ?? '';
    if (c.kind === 'field') {
      rec[c.header] = v;
      return;
    }
    if (v === '') return;
    const ref = meta.relationship(c.relationship);
    if (v === '#N/A' && ref !== undefined) {
      rec[ref.name] = '#N/A';
      return;
    }
    rec[c.relationship] = { ...(c.type !== null ? { attributes: { type: c.type } } : {}), [c.field]: v };
  });
  return rec;
}
