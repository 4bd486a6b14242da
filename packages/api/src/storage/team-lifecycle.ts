import {
  ACTIVE_PHASES,
  type CloseTeamArgs,
  checkSpawnRoom,
  DomainError,
  ErrorCode,
  type InterruptTurnArgs,
  type Job,
  JobPhase,
  type Member,
  notFound,
  type RetireMemberArgs,
  releaseReason,
  type SpawnMemberArgs,
  type Team,
  TeamEventKind,
  TeamStatus,
  type TransitionOutcome,
  toolReplayConflict,
} from '@agent-teams/core';
import { appendConversation } from './conversations.js';
import { JOB_BY_ID, UNFINISHED } from './job-reads.js';
import { applyTransition, updateJob } from './job-writes.js';
import { literalPhases } from './literal-phase.js';
import { toJob, toMember, toTeam, withoutSeq } from './row-mappers.js';
import { releaseClaimsIn } from './task-board.js';
import { recordedToolRequest, recordToolRequest } from './tool-requests.js';
import type { WriteScope } from './write-transaction.js';

/**
 * The team lifecycle writes (decision 0165): spawn, retire and close, each one transaction under
 * the team lock (`FOR UPDATE` on PostgreSQL, the write lock on SQLite), so two servers never
 * both pass the member limit or both retire.
 */

async function readMember(scope: WriteScope, memberId: string): Promise<Member | undefined> {
  const row = await scope.trx.selectFrom('members').selectAll().where('id', '=', memberId).executeTakeFirst();
  return row === undefined ? undefined : toMember(row);
}

/** Applies `cancel` to each job in order, in this transaction; the jobs it changed. */
async function cancelAll(
  scope: WriteScope,
  jobs: readonly Job[],
  cancel: (job: Job) => TransitionOutcome,
): Promise<Job[]> {
  const changed: Job[] = [];
  for (const job of jobs) {
    const outcome = cancel(job);
    if (!outcome.ok) throw outcome.error;
    if (outcome.job === job) continue;
    changed.push(await applyTransition(scope, job, outcome));
  }
  return changed;
}

/** Inserts a member at the end of the roster (idempotent by key; see `TeamLifecycle.spawnMember`). */
export async function spawnMember(
  scope: WriteScope,
  args: SpawnMemberArgs,
): Promise<{ member: Member; created: boolean }> {
  const teamRow = await scope.lockOwnedTeam(args.owner, args.teamId);
  const used = await scope.trx
    .selectFrom('member_spawns')
    .selectAll()
    .where('team_id', '=', args.teamId)
    .where('client_key', '=', args.clientKey)
    .executeTakeFirst();
  if (used !== undefined) {
    if (used.fingerprint !== args.fingerprint) {
      throw new DomainError(ErrorCode.IDEMPOTENCY_CONFLICT, 'This request id was used for another spawn.', {
        field: 'clientRequestId',
      });
    }
    const member = await readMember(scope, used.member_id);
    if (member !== undefined) return { member, created: false };
  }
  if (teamRow.status === TeamStatus.CLOSED) throw new DomainError(ErrorCode.TEAM_CLOSED, 'The team is closed.');
  const roster = (
    await scope.trx.selectFrom('members').selectAll().where('team_id', '=', args.teamId).orderBy('position').execute()
  ).map(toMember);
  checkSpawnRoom(roster, args.member.name, args);
  const position = roster.reduce((max, m) => Math.max(max, m.position + 1), 0);
  await scope.trx
    .insertInto('members')
    .values({
      id: args.member.id,
      team_id: args.teamId,
      position,
      name: args.member.name,
      agent_id: args.member.agentId,
      conversation_id: args.member.conversationId,
      role: args.member.role ?? null,
      is_lead: args.member.isLead === true ? 1 : 0,
    })
    .execute();
  scope.events.rows.rosterChanged(args.teamId);
  await scope.trx
    .insertInto('member_spawns')
    .values({
      team_id: args.teamId,
      client_key: args.clientKey,
      member_id: args.member.id,
      fingerprint: args.fingerprint,
      created_at: scope.now,
    })
    .execute();
  await appendConversation(scope.trx, args.member.conversationId, args.seed, scope.now);
  await scope.events.emit(args.teamId, TeamEventKind.MEMBER_SPAWNED, { memberId: args.member.id });
  await scope.events.emit(args.teamId, TeamEventKind.MEMBER_CHANGED, { memberId: args.member.id });
  const member = await readMember(scope, args.member.id);
  if (member === undefined) throw new Error('[agent-teams/api] a spawned member vanished inside its transaction');
  return { member, created: true };
}

/** Retires a member and cancels its unfinished jobs (see `TeamLifecycle.retireMember`). */
export async function retireMember(
  scope: WriteScope,
  args: RetireMemberArgs,
): Promise<{ member: Member; cancelled: readonly Job[] }> {
  await scope.lockOwnedTeam(args.owner, args.teamId);
  const found = await readMember(scope, args.memberId);
  if (found === undefined || found.teamId !== args.teamId) {
    throw new DomainError(ErrorCode.NOT_FOUND, 'Member not found.', { field: 'memberId' });
  }
  if (found.retiredAt !== null) return { member: found, cancelled: [] };
  await scope.trx.updateTable('members').set({ retired_at: scope.now }).where('id', '=', found.id).execute();
  scope.events.rows.rosterChanged(args.teamId);
  const rows = await scope.trx
    .selectFrom('jobs')
    .selectAll()
    // The member's team too: SQLite then walks that team's jobs (`jobs_team_seq_idx`), where by
    // the member alone it scanned every job ever run.
    .where('team_id', '=', args.teamId)
    .where('member_id', '=', found.id)
    .where('unfinished', '=', UNFINISHED)
    .orderBy('seq')
    .execute();
  const cancelled = await cancelAll(scope, rows.map(toJob), args.cancel);
  // ── Cleanup seam (decision 0165) ── other features release what the retired member holds
  // here, in this transaction (the task board: its claimed tasks). Keep each one a single call.
  await releaseClaimsIn(scope, args.teamId, found.id, releaseReason.retired(found.name));
  await scope.events.emit(args.teamId, TeamEventKind.MEMBER_RETIRED, { memberId: found.id });
  await scope.events.emit(args.teamId, TeamEventKind.MEMBER_CHANGED, { memberId: found.id });
  const retired = { ...found, retiredAt: scope.now };
  // Noted as stored, so its views show it retired whatever roster this write read before.
  scope.events.rows.noteMembers([retired]);
  return { member: retired, cancelled };
}

/** Closes a team and cancels its paused and queued work (see `TeamLifecycle.closeTeam`). */
export async function closeTeam(
  scope: WriteScope,
  args: CloseTeamArgs,
): Promise<{ team: Team; cancelled: readonly Job[] }> {
  const row = await scope.lockOwnedTeam(args.owner, args.teamId);
  if (row.status === TeamStatus.CLOSED) return { team: withoutSeq(toTeam(row)), cancelled: [] };
  await scope.trx.updateTable('teams').set({ status: TeamStatus.CLOSED }).where('id', '=', args.teamId).execute();
  scope.events.rows.forgetTeam(args.teamId);
  const rows = await scope.trx
    .selectFrom('jobs')
    .selectAll()
    .where('team_id', '=', args.teamId)
    .where('unfinished', '=', UNFINISHED)
    .where('phase', 'not in', literalPhases([...ACTIVE_PHASES, JobPhase.CANCELLING]))
    .orderBy('seq')
    .execute();
  const cancelled = await cancelAll(scope, rows.map(toJob), args.cancel);
  // ── Cleanup seam (decision 0165) ── other features release what the closed team holds here,
  // in this transaction (the task board: every claim). Keep each one a single call.
  await releaseClaimsIn(scope, args.teamId, null, releaseReason.closed);
  await scope.events.emit(args.teamId, TeamEventKind.TEAM_CLOSED);
  await scope.events.emit(args.teamId, TeamEventKind.TEAM_CHANGED);
  await scope.events.flush();
  const team = await scope.trx.selectFrom('teams').selectAll().where('id', '=', args.teamId).executeTakeFirstOrThrow();
  return { team: withoutSeq(toTeam(team)), cancelled };
}

/**
 * Ends a member's turn and records the lead's key with it (see `TeamLifecycle.interruptTurn`): a
 * key recorded before answers its job again, so a call replayed after a crash never ends the
 * later turn the member runs by then.
 */
export async function interruptTurn(
  scope: WriteScope,
  args: InterruptTurnArgs,
): Promise<{ job: Job | null; replayed: boolean }> {
  await scope.lockOwnedTeam(args.owner, args.teamId);
  if (args.request !== null) {
    const recorded = await recordedToolRequest(scope, args.teamId, args.request.key);
    if (recorded !== null) {
      const conflict = toolReplayConflict(recorded, args.request);
      if (conflict !== null) throw conflict;
      const [row] = recorded.answerId === null ? [] : await JOB_BY_ID.rows(scope.trx, recorded.answerId);
      return { job: row === undefined ? null : toJob(row), replayed: true };
    }
  }
  const cancel = (job: Job): TransitionOutcome => {
    if (job.teamId !== args.teamId) throw notFound('job');
    return args.cancel(job);
  };
  const job = args.jobId === null ? null : (await updateJob(scope, args.jobId, cancel, args.owner)).job;
  if (args.request !== null) await recordToolRequest(scope, args.teamId, args.request, job?.id ?? null);
  return { job, replayed: false };
}
