/** A SOQL failure: rendered as `400 [{"message", "errorCode"}]`. */
export class SoqlError extends Error {
  readonly errorCode: string;
  constructor(errorCode: string, message: string) {
    super(message);
    this.errorCode = errorCode;
  }
}

/**
 * Salesforce's layout for query errors: the query, a caret under the offending column, the row
 * and column, then the reason.
 */
export function located(soql: string, column: number, reason: string): string {
  const col = Math.max(1, column);
  return `\n${soql}\n${' '.repeat(col - 1)}^\nERROR at Row:1:Column:${col}\n${reason}`;
}

/** 1-based column of `needle` in the query (case-insensitive, searched from `from`), 1 when absent. */
export function columnOf(soql: string, needle: string, from = 0): number {
  const i = soql.toLowerCase().indexOf(needle.toLowerCase(), from);
  return i < 0 ? 1 : i + 1;
}

export function noSuchColumn(soql: string, field: string, entity: string): SoqlError {
  return new SoqlError(
    'INVALID_FIELD',
    located(
      soql,
      columnOf(soql, field, soql.toLowerCase().indexOf('select') + 6),
      `No such column '${field}' on entity '${entity}'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names.`,
    ),
  );
}

export function badRelationship(soql: string, path: string, rel: string): SoqlError {
  return new SoqlError(
    'INVALID_FIELD',
    located(
      soql,
      columnOf(soql, path, soql.toLowerCase().indexOf('select') + 6),
      `Didn't understand relationship '${rel}' in field path. If you are attempting to use a custom relationship, be sure to append the '__r' after the custom relationship name. Please reference your WSDL or the describe call for the appropriate names.`,
    ),
  );
}

export function unsupportedType(soql: string, name: string): SoqlError {
  const from = soql.toLowerCase().search(/\bfrom\b/);
  return new SoqlError(
    'INVALID_TYPE',
    located(
      soql,
      columnOf(soql, name, Math.max(0, from)),
      `sObject type '${name}' is not supported. If you are attempting to use a custom object, be sure to append the '__c' after the entity name. Please reference your WSDL or the describe call for the appropriate names.`,
    ),
  );
}

/** A parser failure as MALFORMED_QUERY, pointing at the token the parser stopped on. */
export function malformed(soql: string, parserMessage: string): SoqlError {
  const found = /but found:? --> '([^']*)' <--|but found: '([^']*)'/.exec(parserMessage);
  const token = found?.[1] ?? found?.[2] ?? '';
  if (token === '') {
    return new SoqlError('MALFORMED_QUERY', located(soql, soql.length + 1, 'unexpected token: <EOF>'));
  }
  const re = new RegExp(`(^|[^A-Za-z0-9_])${token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'g');
  let column = 1;
  for (const m of soql.matchAll(re)) column = (m.index ?? 0) + m[1]!.length + 1;
  return new SoqlError('MALFORMED_QUERY', located(soql, column, `unexpected token: '${token}'`));
}
