import {
  asAgentId,
  decideRequests,
  type IdGenerator,
  type Job,
  type Member,
  type OwnerId,
  type TeamId,
  type TeamStore,
} from '@agent-teams/core';

/** What {@link queueOneEach} creates: the team's members by name, each with one request. */
export interface QueuedTeam {
  readonly owner: OwnerId;
  readonly now: string;
  readonly names: readonly string[];
  readonly agentId: string;
  /** The request each member gets. */
  readonly text: (name: string) => string;
}

/**
 * A READY team of `names` (agent `agentId`) with one queued request to each member, sent one
 * after the other as a person sends them; the jobs in that order.
 */
export async function queueOneEach(store: TeamStore, ids: IdGenerator, team: QueuedTeam): Promise<Job[]> {
  const { owner, now } = team;
  const members = team.names.map((name) => ({
    id: ids.memberId(),
    name,
    agentId: asAgentId(team.agentId),
    conversationId: ids.conversationId(),
  }));
  const teamId = ids.teamId();
  await store.createTeam(
    { id: teamId, owner, clientRequestId: teamId, fingerprint: 'f', name: 'T', goal: 'G', members },
    { now, maxTeams: 20 },
  );
  await store.setTeamStatus(teamId, 'READY', now);
  const jobs: Job[] = [];
  for (const member of members) {
    jobs.push(
      await enqueueFromPerson(store, ids, {
        owner,
        teamId,
        member,
        text: team.text(member.name),
        clientKey: `queued-${member.id}`,
        now,
      }),
    );
  }
  return jobs;
}

/** One request a person sends to one member of a READY team. */
export interface PersonRequest {
  readonly owner: OwnerId;
  readonly teamId: TeamId;
  readonly member: Pick<Member, 'id' | 'conversationId'>;
  readonly text: string;
  readonly clientKey: string;
  readonly now: string;
}

/** Enqueues {@link PersonRequest} through `store` as `sendRequest` would; the queued job. */
export async function enqueueFromPerson(store: TeamStore, ids: IdGenerator, request: PersonRequest): Promise<Job> {
  const { member } = request;
  const plan = {
    recipients: [
      { memberId: member.id, conversationId: member.conversationId, jobId: ids.jobId(), recordId: ids.recordId() },
    ],
    text: request.text,
    clientKey: request.clientKey,
    requester: { memberId: null, conversationId: null },
    chain: null,
  };
  const [job] = await store.enqueueRequests({
    owner: request.owner,
    teamId: request.teamId,
    keys: [{ requesterConversationId: null, clientKey: plan.clientKey, memberId: member.id }],
    roots: [],
    now: request.now,
    decide: (snapshot) => decideRequests(plan, snapshot),
  });
  if (job === undefined) throw new Error('nothing enqueued');
  return job;
}
