import type { AgentId, ConversationId, MemberId, OwnerId, TeamId } from '../../model/ids.js';
import type { Member, Team, TeamStatus } from '../../model/team.js';
import type { SeqPage, SeqPageRequest } from './pages.js';

/** A team to insert (ids minted by the core). */
export interface NewTeam {
  readonly id: TeamId;
  readonly owner: OwnerId;
  readonly clientRequestId: string;
  /** Hash of the creation content, compared on an idempotent retry. */
  readonly fingerprint: string;
  readonly name: string;
  readonly goal: string;
  readonly members: readonly NewMember[];
}

/** A member as created with its team. */
export interface NewMember {
  readonly id: MemberId;
  readonly name: string;
  readonly agentId: AgentId;
  readonly conversationId: ConversationId;
  /** Absent means none (null). */
  readonly role?: string | null;
  /** Absent means false. */
  readonly isLead?: boolean;
}

/** Store role: the writes of teams (creation, status, deletion). */
export interface TeamWrites {
  /**
   * Inserts a team (status CREATING) and its members, or returns the existing team for the same
   * (owner, clientRequestId). Throws IDEMPOTENCY_CONFLICT when that key exists with another
   * fingerprint, TEAM_LIMIT when the owner already has `maxTeams` teams.
   */
  createTeam(team: NewTeam, opts: { now: string; maxTeams: number }): Promise<{ team: Team; created: boolean }>;
  /** Sets a team's status (CREATING → READY, READY ↔ DISCONNECTED). */
  setTeamStatus(teamId: TeamId, status: TeamStatus, now: string): Promise<Team>;
  /**
   * Deletes a team with its members, jobs, record and events. Throws NOT_FOUND (absent or
   * another owner's) or PENDING_WORK (any job unfinished). Conversations are kept.
   */
  deleteTeam(owner: OwnerId, teamId: TeamId, now: string): Promise<void>;
}

/** Store role: the reads of teams and members. */
export interface TeamReads {
  /** The owner's team, or null. */
  findTeam(owner: OwnerId, teamId: TeamId): Promise<Team | null>;
  /** Teams by id, any owner (for batch loading after scoping). Missing ids are skipped. */
  findTeams(teamIds: readonly TeamId[]): Promise<readonly Team[]>;
  /** The owner's teams, newest first. `afterSeq` is the creation seq of the last team seen. */
  listTeams(owner: OwnerId, page: SeqPageRequest): Promise<SeqPage<Team & { readonly seq: number }>>;
  /** Teams in a given status, any owner (reconciliation at start). */
  listTeamsByStatus(status: TeamStatus): Promise<readonly Team[]>;
  /** Members of the given teams, in roster order per team. */
  listMembers(teamIds: readonly TeamId[]): Promise<readonly Member[]>;
  /** Members by id, any owner (for batch loading). */
  findMembers(memberIds: readonly MemberId[]): Promise<readonly Member[]>;
}
