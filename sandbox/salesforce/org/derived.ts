import type { ObjectMeta } from './meta.ts';
import type { FieldValue, SRecord } from './types.ts';

/** What deriving needs: reading other records by id, and new ids (ContentDocument). */
export interface DeriveHost {
  lookup(id: string): { table: { meta: ObjectMeta }; rec: SRecord } | undefined;
  ids: { next(prefix: string): string };
  table(meta: ObjectMeta): { rows: Map<string, SRecord> };
}

/** `INV-{0000}` with 7 → `INV-0007`; a field without a format counts plainly. */
export function formatAutoNumber(format: string, n: number): string {
  const out = format.replace(/\{(0+)\}/, (_m, zeros: string) => String(n).padStart(zeros.length, '0'));
  return out === format ? `${format}${n}` : out;
}

/** Auto-number fields get the next number of their object on insert (deleted records keep theirs). */
function fillAutoNumbers(host: DeriveHost, meta: ObjectMeta, rec: SRecord): void {
  for (const f of meta.fields) {
    if (!f.autoNumber || (rec[f.name] !== undefined && rec[f.name] !== null)) continue;
    const format = (f as { displayFormat?: string }).displayFormat ?? '{00000000}';
    // The next number after the highest given so far (seeded records keep theirs).
    let max = 0;
    for (const r of host.table(meta).rows.values()) {
      const digits = /(\d+)\D*$/.exec(String(r[f.name] ?? ''))?.[1];
      if (digits !== undefined) max = Math.max(max, Number(digits));
    }
    rec[f.name] = formatAutoNumber(format, max + 1);
  }
}

const str = (v: FieldValue | undefined): string | null => (typeof v === 'string' && v !== '' ? v : null);

function accountOf(host: DeriveHost, id: string | null): string | null {
  if (id === null) return null;
  const found = host.lookup(id);
  if (found === undefined) return null;
  if (found.table.meta.name === 'Account') return id;
  return str(found.rec.AccountId);
}

/**
 * Fields Salesforce computes on save for the standard objects that have them: an activity's
 * account (from What, else Who) and closed / high-priority flags, an attachment's size, a content
 * version's document, size and file type, a price book entry's and line item's product fields.
 */
export function deriveRelated(host: DeriveHost, meta: ObjectMeta, rec: SRecord, created: boolean): void {
  if (created) fillAutoNumbers(host, meta, rec);
  switch (meta.name) {
    case 'Task':
    case 'Event':
      rec.AccountId = accountOf(host, str(rec.WhatId)) ?? accountOf(host, str(rec.WhoId));
      if (meta.name === 'Task') {
        rec.IsClosed = rec.Status === 'Completed' || rec.Status === 'Deferred';
        rec.IsHighPriority = rec.Priority === 'High';
        if (rec.IsClosed && rec.CompletedDateTime == null)
          rec.CompletedDateTime = new Date().toISOString().replace('Z', '+0000');
      }
      break;
    case 'Attachment':
      rec.BodyLength = typeof rec.Body === 'string' ? Buffer.from(rec.Body, 'base64').length : 0;
      break;
    case 'ContentVersion': {
      rec.ContentSize =
        typeof rec.VersionData === 'string' ? Buffer.from(rec.VersionData, 'base64').length : 0;
      const ext = /\.([A-Za-z0-9]+)$/.exec(str(rec.PathOnClient) ?? '')?.[1]?.toLowerCase() ?? null;
      rec.FileExtension = ext;
      rec.FileType = ext === null ? 'UNKNOWN' : ext === 'txt' ? 'TEXT' : ext.toUpperCase();
      if (created) {
        // Without a Title, Salesforce names the file after PathOnClient (its base name, no extension).
        const path = str(rec.PathOnClient);
        if (str(rec.Title) === null && path !== null) {
          rec.Title = (path.split(/[\\/]/).pop() ?? path).replace(/\.[A-Za-z0-9]+$/, '') || path;
        }
        rec.ContentDocumentId = host.ids.next('069');
        rec.VersionNumber = '1';
        rec.IsLatest = true;
      }
      break;
    }
    case 'PricebookEntry': {
      const product = str(rec.Product2Id) === null ? undefined : host.lookup(rec.Product2Id as string);
      rec.Name = product?.rec.Name ?? null;
      rec.ProductCode = product?.rec.ProductCode ?? null;
      break;
    }
    case 'OpportunityLineItem': {
      const entry =
        str(rec.PricebookEntryId) === null ? undefined : host.lookup(rec.PricebookEntryId as string);
      if (entry !== undefined) {
        rec.Product2Id = entry.rec.Product2Id ?? null;
        rec.ListPrice = entry.rec.UnitPrice ?? null;
        rec.ProductCode = entry.rec.ProductCode ?? null;
      }
      const opp = str(rec.OpportunityId) === null ? undefined : host.lookup(rec.OpportunityId as string);
      rec.Name = [opp?.rec.Name, entry?.rec.Name].filter((p) => typeof p === 'string').join(' ') || null;
      const qty = typeof rec.Quantity === 'number' ? rec.Quantity : Number(rec.Quantity ?? Number.NaN);
      if (rec.UnitPrice == null && rec.TotalPrice != null && qty > 0)
        rec.UnitPrice = Number(rec.TotalPrice) / qty;
      if (rec.UnitPrice == null && entry !== undefined) rec.UnitPrice = entry.rec.UnitPrice ?? null;
      if (rec.UnitPrice != null && !Number.isNaN(qty)) {
        rec.TotalPrice = Number(rec.UnitPrice) * qty;
        rec.Subtotal = rec.TotalPrice;
      }
      break;
    }
    default:
  }
}
