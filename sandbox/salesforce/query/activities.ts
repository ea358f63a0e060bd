import { ObjectMeta } from '../org/meta.ts';
import type { SRecord } from '../org/types.ts';
import { describeActivityView } from '../seed/objects.ts';
import type { QueryHost } from './paths.ts';

/**
 * ActivityHistory and OpenActivity: read-only views over a record's tasks and events that SOQL
 * reaches only as child relationships (`ActivityHistories`, `OpenActivities` of Account, Contact,
 * Lead, Opportunity, Campaign, …). ActivityHistory holds closed tasks and events that have ended;
 * OpenActivity open tasks and events still to come (the object reference's ActivityHistory and
 * OpenActivity pages). Rows keep the task's or event's Id; `IsTask` tells which.
 */
export const ACTIVITY_VIEWS = new Map<string, ObjectMeta>(
  ['ActivityHistory', 'OpenActivity'].map((name) => [
    name.toLowerCase(),
    new ObjectMeta(describeActivityView(name)),
  ]),
);

export function activityView(name: string): ObjectMeta | undefined {
  return ACTIVITY_VIEWS.get(name.toLowerCase());
}

/** The view's rows whose `field` (AccountId, WhoId or WhatId) names `parentId`. */
export function activityRows(host: QueryHost, view: ObjectMeta, field: string, parentId: unknown): SRecord[] {
  const history = view.name === 'ActivityHistory';
  const now = Date.now();
  const out: SRecord[] = [];
  for (const [objectName, isTask] of [
    ['Task', true],
    ['Event', false],
  ] as const) {
    const meta = host.object(objectName);
    if (meta === undefined) continue;
    for (const rec of host.table(meta).rows.values()) {
      if (rec[field] !== parentId || parentId == null) continue;
      const closed = isTask ? rec.IsClosed === true : eventEnded(rec, now);
      if (closed !== history) continue;
      const row: SRecord = { Id: rec.Id as string, IsTask: isTask, IsClosed: isTask ? closed : history };
      for (const f of view.describe.fields) {
        if (f.name in row) continue;
        const own = meta.field(f.name);
        row[f.name] = own === undefined ? null : (rec[own.name] ?? null);
      }
      if (!isTask) row.ActivityDate ??= dateOf(rec.ActivityDateTime ?? rec.StartDateTime);
      row.ActivityType = (rec.Type as string | null | undefined) ?? null;
      row.ActivitySubtype = isTask ? ((rec.TaskSubtype as string | null | undefined) ?? 'Task') : 'Event';
      out.push(row);
    }
  }
  return out;
}

function eventEnded(rec: SRecord, now: number): boolean {
  const end = rec.EndDateTime ?? rec.ActivityDateTime ?? rec.StartDateTime;
  if (typeof end === 'string') return Date.parse(end) < now;
  const day = rec.ActivityDate;
  return typeof day === 'string' && Date.parse(`${day}T23:59:59Z`) < now;
}

function dateOf(value: unknown): string | null {
  return typeof value === 'string' && value.length >= 10 ? value.slice(0, 10) : null;
}
