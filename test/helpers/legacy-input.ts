// A job's input as earlier versions wrote it into the job's row, whole: gzipped JSON lines
// (`gzl:`: the input with its list empty, then slices of 500 items, a JSON array a line), gzipped
// JSON (`gz:`), or JSON. Jobs still unfinished when a new version starts are stored like this.
import { gzipSync } from 'node:zlib';

export type LegacyFormat = 'gzl' | 'gz' | 'json';

export function legacyInputText(input: Record<string, unknown>, format: LegacyFormat): string {
  if (format === 'json') return JSON.stringify(input);
  if (format === 'gz') return `gz:${gzipSync(JSON.stringify(input)).toString('base64')}`;
  const key = 'records' in input ? 'records' : 'ids';
  const items = input[key] as unknown[];
  const lines = [JSON.stringify({ ...input, [key]: [] })];
  for (let i = 0; i < items.length; i += 500) lines.push(JSON.stringify(items.slice(i, i + 500)));
  return `gzl:${gzipSync(`${lines.join('\n')}\n`).toString('base64')}`;
}
