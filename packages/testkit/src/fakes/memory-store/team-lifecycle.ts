import {
  ACTIVE_PHASES,
  checkSpawnRoom,
  DomainError,
  ErrorCode,
  type InterruptTurnArgs,
  isTerminal,
  type Job,
  type Member,
  type MemberId,
  notFound,
  releaseReason,
  type SpawnMemberArgs,
  type Team,
  type TeamId,
  type TeamLifecycle,
  TeamStatus,
  type TransitionOutcome,
  toolReplayConflict,
} from '@agent-teams/core';
import { applyIn } from './job-writes.js';
import type { MemoryStoreState } from './state.js';
import { releaseClaimsIn } from './tasks.js';
import { teamNotFound, teamOf } from './team-writes.js';

/** Spawn idempotency keys per store state: `teamId` NUL `clientKey` → member and fingerprint. */
const spawnKeys = new WeakMap<MemoryStoreState, Map<string, { memberId: MemberId; fingerprint: string }>>();

function keysOf(state: MemoryStoreState): Map<string, { memberId: MemberId; fingerprint: string }> {
  let keys = spawnKeys.get(state);
  if (keys === undefined) {
    keys = new Map();
    spawnKeys.set(state, keys);
  }
  return keys;
}

function ownedTeam(state: MemoryStoreState, owner: string, teamId: TeamId): Team {
  const team = state.teams.get(teamId)?.team;
  if (team === undefined || team.owner !== owner) throw teamNotFound();
  return team;
}

/** Applies `cancel` to each job in order; the ones it changed. A refusal is a bug of the caller. */
function cancelAll(
  state: MemoryStoreState,
  jobs: readonly Job[],
  cancel: (job: Job) => TransitionOutcome,
  now: string,
): Job[] {
  const changed: Job[] = [];
  for (const job of jobs) {
    const outcome = cancel(job);
    if (!outcome.ok) throw outcome.error;
    const applied = applyIn(state, job, outcome, now);
    if (applied.changed) changed.push(applied.job);
  }
  return changed;
}

function spawnIn(state: MemoryStoreState, args: SpawnMemberArgs): { member: Member; created: boolean } {
  const team = ownedTeam(state, args.owner, args.teamId);
  const key = `${args.teamId}\u0000${args.clientKey}`;
  const used = keysOf(state).get(key);
  if (used !== undefined) {
    if (used.fingerprint !== args.fingerprint) {
      throw new DomainError(ErrorCode.IDEMPOTENCY_CONFLICT, 'This request id was used for another spawn.', {
        field: 'clientRequestId',
      });
    }
    const member = state.members.get(used.memberId);
    if (member !== undefined) return { member, created: false };
  }
  if (team.status === TeamStatus.CLOSED) throw new DomainError(ErrorCode.TEAM_CLOSED, 'The team is closed.');
  const roster = state.rosters.get(team.id) ?? [];
  checkSpawnRoom(roster, args.member.name, args);
  const member: Member = {
    id: args.member.id,
    teamId: team.id,
    position: roster.length,
    name: args.member.name,
    agentId: args.member.agentId,
    conversationId: args.member.conversationId,
    role: args.member.role ?? null,
    isLead: args.member.isLead ?? false,
    retiredAt: null,
  };
  state.rosters.set(team.id, [...roster, member]);
  state.members.set(member.id, member);
  keysOf(state).set(key, { memberId: member.id, fingerprint: args.fingerprint });
  const log = state.conversations.get(member.conversationId) ?? [];
  for (const message of args.seed) {
    state.messageSeq += 1;
    const seq = state.messageSeq;
    log.push({ ...message, id: `message_${seq}`, seq, conversationId: member.conversationId, createdAt: args.now });
  }
  state.conversations.set(member.conversationId, log);
  const write = state.write(team.id, args.now);
  write.event('MEMBER_SPAWNED', { memberId: member.id });
  write.event('MEMBER_CHANGED', { memberId: member.id });
  state.commit(write);
  return { member, created: true };
}

/** `TeamLifecycle.interruptTurn`: a recorded key answers its job again; else cancel, then record. */
function interruptIn(state: MemoryStoreState, args: InterruptTurnArgs): { job: Job | null; replayed: boolean } {
  ownedTeam(state, args.owner, args.teamId);
  const { request } = args;
  const recorded = request === null ? null : state.recordedToolRequest(args.teamId, request.key);
  if (request !== null && recorded !== null) {
    const conflict = toolReplayConflict(recorded, request);
    if (conflict !== null) throw conflict;
    return {
      job: recorded.answerId === null ? null : (state.jobs.get(recorded.answerId as Job['id']) ?? null),
      replayed: true,
    };
  }
  let job: Job | null = null;
  if (args.jobId !== null) {
    const found = state.jobs.get(args.jobId);
    if (found === undefined || found.teamId !== args.teamId) throw notFound('job');
    const outcome = args.cancel(found);
    if (!outcome.ok) throw outcome.error;
    job = applyIn(state, found, outcome, args.now).job;
  }
  if (request !== null) {
    state.recordToolRequest(args.teamId, request.key, { fingerprint: request.fingerprint, answerId: job?.id ?? null });
  }
  return { job, replayed: false };
}

/** The in-memory {@link TeamLifecycle}: each method is synchronous inside, so atomic. */
export function memoryTeamLifecycle(state: MemoryStoreState): TeamLifecycle {
  return {
    spawnMember: async (args) => spawnIn(state, args),
    interruptTurn: async (args) => interruptIn(state, args),
    async retireMember(args) {
      ownedTeam(state, args.owner, args.teamId);
      const found = state.members.get(args.memberId);
      if (found === undefined || found.teamId !== args.teamId) {
        throw new DomainError(ErrorCode.NOT_FOUND, 'Member not found.', { field: 'memberId' });
      }
      if (found.retiredAt !== null) return { member: found, cancelled: [] };
      const member: Member = { ...found, retiredAt: args.now };
      state.members.set(member.id, member);
      state.rosters.set(
        args.teamId,
        (state.rosters.get(args.teamId) ?? []).map((m) => (m.id === member.id ? member : m)),
      );
      const jobs = [...state.jobs.values()].filter((j) => j.memberId === member.id && !isTerminal(j.phase));
      const cancelled = cancelAll(state, jobs, args.cancel, args.now);
      // Cleanup seam (decision 0165): other features release what the member holds here.
      const write = state.write(args.teamId, args.now);
      releaseClaimsIn(state, write, member.id, releaseReason.retired(member.name));
      write.event('MEMBER_RETIRED', { memberId: member.id });
      write.event('MEMBER_CHANGED', { memberId: member.id });
      state.commit(write);
      return { member, cancelled };
    },
    async closeTeam(args) {
      const team = ownedTeam(state, args.owner, args.teamId);
      if (team.status === TeamStatus.CLOSED) return { team, cancelled: [] };
      const stored = state.teams.get(team.id);
      if (stored !== undefined) state.teams.set(team.id, { ...stored, team: { ...team, status: TeamStatus.CLOSED } });
      const jobs = [...state.jobs.values()].filter(
        (j) => j.teamId === team.id && !isTerminal(j.phase) && !ACTIVE_PHASES.includes(j.phase),
      );
      const cancelled = cancelAll(state, jobs, args.cancel, args.now);
      // Cleanup seam (decision 0165): other features release what the closed team holds here.
      const write = state.write(team.id, args.now);
      releaseClaimsIn(state, write, null, releaseReason.closed);
      write.event('TEAM_CLOSED', {});
      write.event('TEAM_CHANGED', {});
      state.commit(write);
      return { team: teamOf(state, team.id), cancelled };
    },
  };
}
