import { asAgentId, decideRequests, type IdGenerator, type Job, type OwnerId, type TeamStore } from '@agent-teams/core';

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
    const plan = {
      recipients: [
        { memberId: member.id, conversationId: member.conversationId, jobId: ids.jobId(), recordId: ids.recordId() },
      ],
      text: team.text(member.name),
      clientKey: `queued-${member.id}`,
      requester: { memberId: null, conversationId: null },
      chain: null,
    };
    const [job] = await store.enqueueRequests({
      owner,
      teamId,
      keys: [{ requesterConversationId: null, clientKey: plan.clientKey, memberId: member.id }],
      roots: [],
      now,
      decide: (snapshot) => decideRequests(plan, snapshot),
    });
    if (job === undefined) throw new Error('nothing enqueued');
    jobs.push(job);
  }
  return jobs;
}
