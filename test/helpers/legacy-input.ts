// A job's input as version 0.1.0 wrote it into the job's row, whole: `gz:` and base64 of its
// gzipped JSON. Jobs still unfinished when a new version starts are stored like this.
import { gzipSync } from 'node:zlib';

export type LegacyFormat = 'gz';

export function legacyInputText(input: Record<string, unknown>, _format: LegacyFormat = 'gz'): string {
  return `gz:${gzipSync(JSON.stringify(input)).toString('base64')}`;
}
