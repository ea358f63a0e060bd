import type { Owner, Pipeline, PipelineStage } from '../model/types.ts';

const AT = '2024-03-04T10:15:30.250Z';

/** Seeded owners; the first one's `userId` is the API user (`API_USER_ID`). */
export const SEED_OWNERS: Owner[] = [
  ['101', 'ada.owner@sandbox.example', 'Ada', 'Byron', 1122334],
  ['102', 'grace.owner@sandbox.example', 'Grace', 'Hopper', 1122335],
  ['103', 'alan.owner@sandbox.example', 'Alan', 'Turing', 1122336],
  ['104', 'katherine.owner@sandbox.example', 'Katherine', 'Johnson', 1122337],
].map(
  ([id, email, firstName, lastName, userId]): Owner => ({
    id: String(id),
    email: String(email),
    firstName: String(firstName),
    lastName: String(lastName),
    userId: Number(userId),
    userIdIncludingInactive: Number(userId),
    type: 'PERSON',
    teams: [{ id: '501', name: 'Sales', primary: true }],
    archived: false,
    createdAt: AT,
    updatedAt: AT,
  }),
);

function stages(list: [id: string, label: string, metadata: Record<string, string>][]): PipelineStage[] {
  return list.map(([id, label, metadata], i) => ({
    id,
    label,
    displayOrder: i,
    metadata,
    archived: false,
    createdAt: AT,
    updatedAt: AT,
  }));
}

/** HubSpot's default deal pipeline (id `default`) and default ticket pipeline (id `0`). */
export const SEED_PIPELINES: Record<string, Pipeline[]> = {
  '0-3': [
    {
      id: 'default',
      label: 'Sales Pipeline',
      displayOrder: 0,
      archived: false,
      createdAt: AT,
      updatedAt: AT,
      stages: stages([
        ['appointmentscheduled', 'Appointment Scheduled', { isClosed: 'false', probability: '0.2' }],
        ['qualifiedtobuy', 'Qualified To Buy', { isClosed: 'false', probability: '0.4' }],
        ['presentationscheduled', 'Presentation Scheduled', { isClosed: 'false', probability: '0.6' }],
        ['decisionmakerboughtin', 'Decision Maker Bought-In', { isClosed: 'false', probability: '0.8' }],
        ['contractsent', 'Contract Sent', { isClosed: 'false', probability: '0.9' }],
        ['closedwon', 'Closed Won', { isClosed: 'true', probability: '1.0' }],
        ['closedlost', 'Closed Lost', { isClosed: 'true', probability: '0.0' }],
      ]),
    },
  ],
  '0-5': [
    {
      id: '0',
      label: 'Support Pipeline',
      displayOrder: 0,
      archived: false,
      createdAt: AT,
      updatedAt: AT,
      stages: stages([
        ['1', 'New', { ticketState: 'OPEN' }],
        ['2', 'Waiting on contact', { ticketState: 'OPEN' }],
        ['3', 'Waiting on us', { ticketState: 'OPEN' }],
        ['4', 'Closed', { ticketState: 'CLOSED' }],
      ]),
    },
  ],
};
