/**
 * `multipart/form-data` record bodies, as Salesforce takes them for blob fields (ContentVersion's
 * VersionData, Attachment's Body, Document's Body): one JSON part named `entity_<something>` with
 * the record's fields, and one binary part named after the blob field. The result is the JSON
 * record with the blob field set to the part's bytes in base64, which is what the JSON form of
 * the same insert carries. Null when the body is not of that shape.
 */
export function multipartRecord(body: Buffer, contentType: string): Record<string, unknown> | null {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = m?.[1] ?? m?.[2];
  if (boundary === undefined) return null;
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: { name: string; data: Buffer }[] = [];
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, start);
    if (next < 0) break;
    // Each part: CRLF, headers, a blank line, data, CRLF before the next delimiter.
    const part = body.subarray(start + 2, next - 2);
    const split = part.indexOf('\r\n\r\n');
    if (split >= 0) {
      const headers = part.subarray(0, split).toString('utf8');
      const name = /content-disposition:[^\r\n]*\bname="([^"]*)"/i.exec(headers)?.[1];
      if (name !== undefined) parts.push({ name, data: part.subarray(split + 4) });
    }
    at = next;
  }
  const entity = parts.find((p) => p.name.toLowerCase().startsWith('entity_'));
  if (entity === undefined) return null;
  let record: unknown;
  try {
    record = JSON.parse(entity.data.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return null;
  const out = { ...(record as Record<string, unknown>) };
  for (const p of parts) if (p !== entity) out[p.name] = p.data.toString('base64');
  return out;
}
