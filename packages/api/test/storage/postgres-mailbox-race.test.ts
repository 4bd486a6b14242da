import {
  asAgentId,
  asOwnerId,
  BROADCAST_KEY_PREFIX,
  decideMessage,
  decideRequests,
  type Job,
  JobKind,
  JobPhase,
  MessageDelivery,
  type Team,
  transition,
} from '@agent-teams/core';
import { SequentialIds } from '@agent-teams/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';

let pg: FreshPostgres;
let stores: [KyselyTeamStore, KyselyTeamStore];
beforeAll(async () => {
  pg = await createFreshPostgres('agent_teams_mailbox_race');
  const opened = await Promise.all([openDatabase(pg.url), openDatabase(pg.url)]);
  stores = opened.map((d) => new KyselyTeamStore(d.db, d.dialect, { close: d.close })) as typeof stores;
});
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await pg.drop();
});

const ids = new SequentialIds();
const owner = asOwnerId('racer');
const now = '2026-01-01T00:00:00.000Z';

async function teamOfThree(): Promise<{ team: Team; members: Awaited<ReturnType<KyselyTeamStore['listMembers']>> }> {
  const members = ['L', 'A', 'B'].map((name) => ({
    id: ids.memberId(),
    name,
    agentId: asAgentId('researcher'),
    conversationId: ids.conversationId(),
  }));
  const id = ids.teamId();
  await stores[0].createTeam(
    { id, owner, clientRequestId: id, fingerprint: 'f', name: 'T', goal: 'G', members },
    { now, maxTeams: 20 },
  );
  const team = await stores[0].setTeamStatus(id, 'READY', now);
  return { team, members: await stores[0].listMembers([id]) };
}

describe('the mailbox and broadcasts on two servers over one PostgreSQL database', () => {
  it('stores one message for racing sends of one key through both servers', async () => {
    const { team, members } = await teamOfThree();
    const to = members.slice(1).map((m) => m.id);
    const send = (store: KyselyTeamStore) => {
      const plan = {
        id: ids.messageId(),
        senderId: null,
        key: 'same',
        recipientIds: to,
        text: 'hello',
        delivery: MessageDelivery.FOLLOW_UP,
        jobIds: new Map(to.map((m) => [m, ids.jobId()])),
        now,
      };
      return store.sendMessage({
        owner,
        teamId: team.id,
        senderId: null,
        key: 'same',
        recipientIds: to,
        now,
        decide: (s) => decideMessage(plan, s),
      });
    };
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => send(stores[i % 2] as KyselyTeamStore)));
    expect(new Set(results.map((r) => r.message.id)).size).toBe(1);
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    const jobs = await stores[1].listJobs(team.id, { kind: JobKind.MESSAGE }, { first: 10, afterSeq: null });
    expect(jobs.items.map((j) => j.memberId)).toEqual(to);
  });

  it('adds exactly one broadcast receipt when both servers finish the last two requests at once', async () => {
    for (let round = 0; round < 5; round += 1) {
      const { team, members } = await teamOfThree();
      const [lead, ...others] = members;
      if (lead === undefined) throw new Error('no lead');
      const requester = { memberId: lead.id, conversationId: lead.conversationId };
      const clientKey = `${BROADCAST_KEY_PREFIX}race-${round}`;
      const plan = {
        recipients: others.map((m) => ({
          memberId: m.id,
          conversationId: m.conversationId,
          jobId: ids.jobId(),
          recordId: ids.recordId(),
        })),
        text: 'everyone?',
        clientKey,
        requester,
        chain: null,
      };
      const requests = await stores[0].enqueueRequests({
        owner,
        teamId: team.id,
        keys: others.map((m) => ({ requesterConversationId: lead.conversationId, clientKey, memberId: m.id })),
        roots: [],
        now,
        decide: (snapshot) => decideRequests(plan, snapshot),
      });
      const finish = (store: KyselyTeamStore, job: Job) =>
        store.updateJob(job.id, (j) => transition(j, { type: 'CANCEL' }, { now, ids }), { now });
      await Promise.all(requests.map((job, i) => finish(stores[i % 2] as KyselyTeamStore, job)));
      const receipts = await stores[0].listJobs(
        team.id,
        { kind: JobKind.BROADCAST_RECEIPT },
        { first: 10, afterSeq: null },
      );
      expect(receipts.items.map((j) => [j.memberId, j.phase])).toEqual([[lead.id, JobPhase.QUEUED]]);
    }
  });
});
