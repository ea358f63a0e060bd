import type { Portal } from '../model/portal.ts';
import { SEED_OWNERS } from './owners-pipelines.ts';

/**
 * The seeded account's past in its audit log: each owner's sign-in and the pipelines' set-up, at
 * fixed times before anything the API does, so a filter on the acting user or the time has
 * something to leave out.
 */
export function seedAuditHistory(portal: Portal): void {
  const at = (day: number, hour: number) =>
    `2024-03-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00.000Z`;
  for (const [i, owner] of SEED_OWNERS.entries()) {
    portal.audit({
      category: 'LOGIN',
      subCategory: 'LOGIN_SUCCEEDED',
      action: 'PERFORM',
      targetObjectId: String(owner.userId),
      occurredAt: at(1, 9 + i),
      actingUser: { userId: owner.userId, userEmail: owner.email },
    });
  }
  const grace = SEED_OWNERS[1];
  for (const [subCategory, label] of [
    ['DEAL', 'Sales Pipeline'],
    ['TICKET', 'Support Pipeline'],
  ] as const) {
    portal.audit({
      category: 'PIPELINE',
      subCategory,
      action: 'CREATE',
      targetObjectId: label,
      occurredAt: at(4, 10),
      ...(grace === undefined ? {} : { actingUser: { userId: grace.userId, userEmail: grace.email } }),
    });
  }
}
