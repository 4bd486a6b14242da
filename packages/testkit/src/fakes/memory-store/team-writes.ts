import {
  DomainError,
  ErrorCode,
  isTerminal,
  type Member,
  type NewTeam,
  notFound,
  type OwnerId,
  type Team,
  type TeamEvent,
  type TeamId,
  type TeamReads,
  TeamStatus,
  type TeamWrites,
} from '@agent-teams/core';
import { type MemoryStoreState, pageOf } from './state.js';

/** The NOT_FOUND of an absent (or another owner's) team. */
export function teamNotFound(): DomainError {
  return notFound('team');
}

/** The stored team; a missing one inside a write is a bug of the store, not a domain error. */
export function teamOf(state: MemoryStoreState, teamId: TeamId): Team {
  const stored = state.teams.get(teamId);
  if (stored === undefined) throw new Error(`[agent-teams/testkit] team ${teamId} vanished inside a write`);
  return stored.team;
}

/** `TeamStore.createTeam`: idempotent by (owner, clientRequestId), checked before the team limit. */
function createTeamIn(
  state: MemoryStoreState,
  input: NewTeam,
  opts: { now: string; maxTeams: number },
): { team: Team; created: boolean } {
  const owned = [...state.teams.values()].filter((t) => t.team.owner === input.owner);
  const existing = owned.find((t) => t.team.clientRequestId === input.clientRequestId);
  if (existing !== undefined) {
    if (existing.fingerprint !== input.fingerprint) {
      throw new DomainError(ErrorCode.IDEMPOTENCY_CONFLICT, 'This clientRequestId was used for another team.', {
        field: 'clientRequestId',
      });
    }
    return { team: existing.team, created: false };
  }
  if (owned.length >= opts.maxTeams) {
    throw new DomainError(ErrorCode.TEAM_LIMIT, `Team limit reached (${opts.maxTeams}).`, { limit: opts.maxTeams });
  }
  const team: Team = {
    id: input.id,
    owner: input.owner,
    clientRequestId: input.clientRequestId,
    name: input.name,
    goal: input.goal,
    status: TeamStatus.CREATING,
    // The creating write below bumps these to revision 1 with its first events.
    revision: 0,
    lastEventSeq: 0,
    createdAt: opts.now,
    updatedAt: opts.now,
  };
  state.teamSeq += 1;
  state.teams.set(team.id, { team, seq: state.teamSeq, fingerprint: input.fingerprint });
  const roster = input.members.map(
    (m, position): Member => ({
      id: m.id,
      teamId: team.id,
      position,
      name: m.name,
      agentId: m.agentId,
      conversationId: m.conversationId,
      role: m.role ?? null,
      isLead: m.isLead ?? false,
      retiredAt: null,
    }),
  );
  state.rosters.set(team.id, roster);
  const write = state.write(team.id, opts.now);
  write.event('TEAM_CHANGED', {});
  for (const member of roster) {
    state.members.set(member.id, member);
    write.event('MEMBER_CHANGED', { memberId: member.id });
  }
  state.commit(write);
  return { team: teamOf(state, team.id), created: true };
}

/** `TeamStore.setTeamStatus`: setting the current status again changes nothing. */
function setTeamStatusIn(state: MemoryStoreState, teamId: TeamId, status: TeamStatus, now: string): Team {
  const stored = state.teams.get(teamId);
  if (stored === undefined) throw teamNotFound();
  if (stored.team.status === status) return stored.team;
  state.teams.set(teamId, { ...stored, team: { ...stored.team, status } });
  const write = state.write(teamId, now);
  write.event('TEAM_CHANGED', {});
  // Member status dots derive from the team status (PROVISIONING while CREATING).
  for (const member of state.rosters.get(teamId) ?? []) write.event('MEMBER_CHANGED', { memberId: member.id });
  state.commit(write);
  return teamOf(state, teamId);
}

/** `TeamStore.deleteTeam`: refused while any job is unfinished; conversations are kept. */
function deleteTeamIn(state: MemoryStoreState, owner: OwnerId, teamId: TeamId, now: string): void {
  const stored = state.teams.get(teamId);
  if (stored === undefined || stored.team.owner !== owner) throw teamNotFound();
  const jobs = [...state.jobs.values()].filter((job) => job.teamId === teamId);
  if (jobs.some((job) => !isTerminal(job.phase))) {
    throw new DomainError(ErrorCode.PENDING_WORK, 'Cancel or complete pending requests first.');
  }
  for (const job of jobs) state.jobs.delete(job.id);
  for (const [key, used] of state.responses) if (used.teamId === teamId) state.responses.delete(key);
  for (const member of state.rosters.get(teamId) ?? []) state.members.delete(member.id);
  for (const message of [...state.teamMessages.values()].filter((m) => m.teamId === teamId)) {
    state.teamMessages.delete(message.id);
    for (const memberId of message.recipientIds) state.deliveries.delete(`${message.id}\u0000${memberId}`);
  }
  for (const table of [
    state.rosters,
    state.records,
    state.recordSeqs,
    state.events,
    state.tasks,
    state.toolRequests,
    state.teamBudgets,
    state.teams,
  ]) {
    table.delete(teamId);
  }
  // The log went with the team; live subscribers still hear that it changed (it is gone).
  const gone: TeamEvent = {
    teamId,
    owner,
    seq: stored.team.lastEventSeq + 1,
    kind: 'TEAM_CHANGED',
    jobId: null,
    recordId: null,
    memberId: null,
    createdAt: now,
  };
  state.sink?.published([gone]);
}

/** The in-memory {@link TeamWrites}. */
export function memoryTeamWrites(state: MemoryStoreState): TeamWrites {
  return {
    createTeam: async (input, opts) => createTeamIn(state, input, opts),
    setTeamStatus: async (teamId, status, now) => setTeamStatusIn(state, teamId, status, now),
    deleteTeam: async (owner, teamId, now) => deleteTeamIn(state, owner, teamId, now),
  };
}

/** The in-memory {@link TeamReads}. */
export function memoryTeamReads(state: MemoryStoreState): TeamReads {
  return {
    async findTeam(owner, teamId) {
      const team = state.teams.get(teamId)?.team;
      return team !== undefined && team.owner === owner ? team : null;
    },
    findTeams: async (teamIds) => teamIds.flatMap((id) => state.teams.get(id)?.team ?? []),
    async listTeams(owner, req) {
      const { afterSeq } = req;
      const items = [...state.teams.values()]
        .filter((t) => t.team.owner === owner && (afterSeq === null || t.seq < afterSeq))
        .sort((a, b) => b.seq - a.seq)
        .map((t) => ({ ...t.team, seq: t.seq }));
      return pageOf(items, req.first);
    },
    listTeamsByStatus: async (status) =>
      [...state.teams.values()].filter((t) => t.team.status === status).map((t) => t.team),
    listMembers: async (teamIds) => [...new Set(teamIds)].flatMap((id) => state.rosters.get(id) ?? []),
    findMembers: async (memberIds) => memberIds.flatMap((id) => state.members.get(id) ?? []),
  };
}
