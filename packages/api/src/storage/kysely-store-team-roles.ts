import type {
  Job,
  Member,
  MemberId,
  NewestFirstPage,
  NewestFirstPageRequest,
  NewTeam,
  OwnerId,
  RecordId,
  RecordMessage,
  SeqPage,
  SeqPageRequest,
  Team,
  TeamEvent,
  TeamId,
  TeamLifecycle,
  TeamReadFilter,
  TeamStatus,
} from '@agent-teams/core';
import { KyselyStoreBase } from './kysely-store-base.js';
import * as memberToolReads from './member-tool-reads.js';
import * as recordReads from './record-reads.js';
import * as lifecycle from './team-lifecycle.js';
import * as teamReads from './team-reads.js';
import * as teamWrites from './team-writes.js';
import { runWrite } from './write-transaction.js';

/** The team roles of the Kysely store: `TeamWrites`, `TeamLifecycle`, `TeamReads`, `RecordReads` and `EventLog`. */
export class KyselyTeamRoles extends KyselyStoreBase {
  // ---- TeamWrites ---------------------------------------------------------------------------

  createTeam(team: NewTeam, opts: { now: string; maxTeams: number }): Promise<{ team: Team; created: boolean }> {
    return runWrite(this.ctx, opts.now, (scope) => teamWrites.createTeam(scope, team, opts.maxTeams), {
      retryOnUniqueViolation: true,
    });
  }

  setTeamStatus(teamId: TeamId, status: TeamStatus, now: string): Promise<Team> {
    return runWrite(this.ctx, now, (scope) => teamWrites.setTeamStatus(scope, teamId, status));
  }

  deleteTeam(owner: OwnerId, teamId: TeamId, now: string): Promise<void> {
    // Cascades over the team's whole history: a transaction of its own, temporary files on disk.
    return runWrite(this.ctx, now, (scope) => teamWrites.deleteTeam(scope, owner, teamId), { large: true });
  }

  // ---- TeamLifecycle (decision 0165): spawn, retire and close, each one transaction ----------

  readonly spawnMember: TeamLifecycle['spawnMember'] = (args) =>
    runWrite(this.ctx, args.now, (scope) => lifecycle.spawnMember(scope, args), { retryOnUniqueViolation: true });
  readonly retireMember: TeamLifecycle['retireMember'] = (args) =>
    runWrite(this.ctx, args.now, (scope) => lifecycle.retireMember(scope, args));
  readonly closeTeam: TeamLifecycle['closeTeam'] = (args) =>
    runWrite(this.ctx, args.now, (scope) => lifecycle.closeTeam(scope, args));
  // Not the scheduler's write (no lease): a lost ride is retried away, as `updateJob` does.
  readonly interruptTurn: TeamLifecycle['interruptTurn'] = (args) =>
    runWrite(this.ctx, args.now, (scope) => lifecycle.interruptTurn(scope, args), { retryOnLostRide: true });

  // ---- TeamReads ----------------------------------------------------------------------------

  findTeam(owner: OwnerId, teamId: TeamId): Promise<Team | null> {
    return teamReads.findTeam(this.ctx.db, owner, teamId);
  }

  findTeams(teamIds: readonly TeamId[]): Promise<readonly Team[]> {
    return teamReads.findTeams(this.ctx.db, teamIds);
  }

  listTeams(owner: OwnerId, page: SeqPageRequest): Promise<SeqPage<Team & { readonly seq: number }>> {
    return teamReads.listTeams(this.ctx.db, owner, page);
  }

  listTeamsByStatus(status: TeamStatus): Promise<readonly Team[]> {
    return teamReads.listTeamsByStatus(this.ctx.db, status);
  }

  listMembers(teamIds: readonly TeamId[]): Promise<readonly Member[]> {
    return teamReads.listMembers(this.ctx.db, teamIds);
  }

  findMembers(memberIds: readonly MemberId[]): Promise<readonly Member[]> {
    return teamReads.findMembers(this.ctx.db, memberIds);
  }

  // ---- RecordReads and EventLog -------------------------------------------------------------

  recentRecords(teamId: TeamId, limit: number): Promise<readonly RecordMessage[]> {
    return recordReads.recentRecords(this.ctx.db, teamId, limit);
  }

  findRecords(recordIds: readonly RecordId[]): Promise<readonly RecordMessage[]> {
    return recordReads.findRecords(this.ctx.db, recordIds);
  }

  pageRecords(
    teamId: TeamId,
    filter: TeamReadFilter,
    page: NewestFirstPageRequest,
  ): Promise<NewestFirstPage<RecordMessage>> {
    return memberToolReads.pageRecords(this.ctx.db, this.ctx.dialect, teamId, filter, page);
  }

  searchResults(teamId: TeamId, filter: TeamReadFilter, page: NewestFirstPageRequest): Promise<NewestFirstPage<Job>> {
    return memberToolReads.searchResults(this.ctx.db, this.ctx.dialect, teamId, filter, page);
  }

  readEvents(teamId: TeamId, afterSeq: number, limit: number): Promise<readonly TeamEvent[]> {
    return recordReads.readEvents(this.ctx.db, teamId, afterSeq, limit);
  }
}
