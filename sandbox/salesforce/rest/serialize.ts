import { compoundAddress } from '../org/compound.ts';
import type { ObjectMeta, SRecord } from '../org/index.ts';

export const recordUrl = (version: string, type: string, id: string): string =>
  `/services/data/v${version}/sobjects/${type}/${id}`;

/** A record as `GET /sobjects/X/id` answers: attributes, then every field in describe order, nulls explicit. */
export function recordJson(meta: ObjectMeta, rec: SRecord, version: string): Record<string, unknown> {
  const id = String(rec.Id);
  const out: Record<string, unknown> = {
    attributes: { type: meta.name, url: recordUrl(version, meta.name, id) },
  };
  for (const f of meta.fields) {
    if (f.type === 'address') out[f.name] = compoundAddress(meta, f.name, rec);
    else if (f.type === 'location') out[f.name] = null;
    // Blobs are not inlined: the answer names the URL that serves the bytes.
    else if (f.type === 'base64')
      out[f.name] = rec[f.name] == null ? null : `${recordUrl(version, meta.name, id)}/${f.name}`;
    else out[f.name] = rec[f.name] ?? null;
  }
  return out;
}
