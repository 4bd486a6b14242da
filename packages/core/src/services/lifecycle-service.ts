import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { Limits } from '../limits/limits.js';
import { asAgentId, asMemberId, type JobId, type OwnerId } from '../model/ids.js';
import { isTerminal, type Job, JobPhase } from '../model/job.js';
import { deriveMemberStatus } from '../model/member-status.js';
import { type Member, type MemberStatus, type Team, TeamStatus } from '../model/team.js';
import { hashFilter } from '../pagination/cursor.js';
import { nowTimestamp } from '../ports/clock.js';
import type {
  ConversationLog,
  JobReads,
  JobWrites,
  TeamLifecycle,
  TeamReads,
  ToolRequest,
} from '../ports/team-store.js';
import { validateClientRequestId, validateRole, validateText } from '../text/validate-text.js';
import type { UsesStore } from './core-types.js';
import { UNFINISHED_STATUSES } from './handoff-service.js';
import {
  cancelStep,
  findMember,
  forkSeed,
  type LifecycleActor,
  MEMBERS_EVER_PER_TEAM,
  parseSpawnContext,
  SpawnContext,
} from './lifecycle-decisions.js';
import { ensureMemberConversations } from './member-conversations.js';

/** The store roles the lifecycle use cases depend on. */
export type LifecycleDeps = UsesStore<TeamReads & JobReads & JobWrites & TeamLifecycle & ConversationLog>;

/** A spawn after shape checks; `fields` names the caller's argument names for errors. */
export interface SpawnRequest {
  readonly name: unknown;
  readonly agentId: unknown;
  readonly role: unknown;
  readonly context: unknown;
  readonly clientKey: unknown;
  readonly fields: { readonly name: string; readonly agentId: string; readonly clientKey: string };
}

/** A spawned member and its derived status. */
export interface SpawnOutcome {
  readonly member: Member;
  readonly status: MemberStatus;
}

/** How many messages of the lead's conversation a fork looks at (its newest). */
const FORK_SCAN = 400;

const context = (deps: LifecycleDeps) => ({ now: nowTimestamp(deps.clock), ids: deps.ids });

/** The fork seed from `lead`'s conversation (empty without a lead). */
async function seedFrom(deps: LifecycleDeps, lead: Member | null): Promise<ReturnType<typeof forkSeed>> {
  if (lead === null) return [];
  const messages = [];
  let afterSeq: number | null = null;
  for (;;) {
    const page = await deps.store.listConversation(lead.conversationId, { first: 100, afterSeq });
    messages.push(...page.items);
    if (!page.hasNextPage || page.items.length === 0) break;
    afterSeq = page.items[page.items.length - 1]?.seq ?? null;
  }
  const recent = messages.slice(-FORK_SCAN);
  const jobIds = [...new Set(recent.flatMap((m) => (m.jobId === null ? [] : [m.jobId])))] as JobId[];
  const jobs = jobIds.length === 0 ? [] : await deps.store.findJobs(jobIds);
  const completed = new Set<string>(jobs.filter((j) => j.phase === JobPhase.COMPLETED).map((j) => j.id));
  return forkSeed(recent, completed, Limits.contextBytes);
}

/**
 * Spawns a member into `team` (the lead's tool, or the owner acting as the lead). The member row
 * is written first (the name is then taken for good); if its conversation cannot be ensured, it
 * is retired at once, so a failed spawn keeps its name too and shows RETIRED.
 * @throws DomainError INVALID_INPUT, NOT_FOUND (agent), TEAM_CLOSED, DUPLICATE_MEMBER_NAME,
 * MEMBER_COUNT, IDEMPOTENCY_CONFLICT.
 */
export async function spawnMember(deps: LifecycleDeps, team: Team, req: SpawnRequest): Promise<SpawnOutcome> {
  const name = validateText(req.fields.name, req.name, Limits.memberName);
  const agentId = asAgentId(validateText(req.fields.agentId, req.agentId, Limits.clientRequestId));
  const role = validateRole('role', req.role);
  const ctx = parseSpawnContext('context', req.context);
  const clientKey = validateClientRequestId(req.clientKey, req.fields.clientKey);
  if (team.status === TeamStatus.CLOSED) throw teamClosed();
  const agent = await deps.catalog.get(agentId);
  if (agent === null)
    throw new DomainError(ErrorCode.NOT_FOUND, 'No such agent in the catalog.', { field: req.fields.agentId });
  const roster = await deps.store.listMembers([team.id]);
  const lead = roster.find((m) => m.isLead && m.retiredAt === null) ?? null;
  const { member, created } = await deps.store.spawnMember({
    owner: team.owner,
    teamId: team.id,
    member: { id: deps.ids.memberId(), name, agentId, conversationId: deps.ids.conversationId(), role, isLead: false },
    clientKey,
    fingerprint: hashFilter({ name, agentId, role, context: ctx }),
    maxActive: Limits.maxMembers,
    maxEver: MEMBERS_EVER_PER_TEAM,
    seed: ctx === SpawnContext.FORK ? await seedFrom(deps, lead) : [],
    now: nowTimestamp(deps.clock),
  });
  let current = member;
  if (created && !(await ensureMemberConversations(deps, team, [member], new Map([[agentId, agent]])))) {
    current = (
      await deps.store.retireMember({ ...ids(team, member), now: context(deps).now, cancel: cancelStep(context(deps)) })
    ).member;
  }
  return { member: current, status: await statusOf(deps, team, current) };
}

const ids = (team: Team, member: Member) => ({ owner: team.owner, teamId: team.id, memberId: member.id });

async function statusOf(deps: LifecycleDeps, team: Team, member: Member): Promise<MemberStatus> {
  const states = await deps.store.conversationStates([member.conversationId]);
  const state = states.get(member.conversationId) ?? { head: null, lastFinished: null };
  return deriveMemberStatus(team.status, state, member.retiredAt);
}

function teamClosed(): DomainError {
  return new DomainError(ErrorCode.TEAM_CLOSED, 'The team is closed.');
}

/**
 * Retires `member` of `team`: its unfinished jobs are cancelled in the same transaction.
 * @returns the member (RETIRED) and the ids of the jobs that changed.
 */
export async function retireMember(
  deps: LifecycleDeps,
  team: Team,
  member: Member,
  by: LifecycleActor = 'person',
): Promise<{ member: Member; cancelled: readonly JobId[] }> {
  const tctx = context(deps);
  const cancel = cancelStep(tctx, undefined, by);
  const result = await deps.store.retireMember({ ...ids(team, member), now: tctx.now, cancel });
  return { member: result.member, cancelled: result.cancelled.map((job) => job.id) };
}

/** Closes `team`: queued and paused work is cancelled; running turns end on their own. */
export async function closeTeam(deps: LifecycleDeps, team: Team, by: LifecycleActor = 'person'): Promise<Team> {
  const tctx = context(deps);
  const cancel = cancelStep(tctx, undefined, by);
  return (await deps.store.closeTeam({ owner: team.owner, teamId: team.id, now: tctx.now, cancel })).team;
}

/**
 * Ends `member`'s current turn: the head job of its conversation, once admission began, is
 * cancelled with `reason` as its error. A member with no turn begun (idle, or only queued work)
 * answers null. Its mailbox and tasks are not touched.
 *
 * @remarks With `request` (the lead's `team_interrupt` with a `request_id`), the store records the
 * answer (the job, or null) in the transaction of the cancel, and a call under a recorded key
 * answers that job again and cancels nothing: replayed after a crash, the call would otherwise
 * end whatever turn the member runs by then, a later one. Without a key every call acts.
 */
export async function interruptMember(
  deps: LifecycleDeps,
  team: Team,
  member: Member,
  reasonArg: unknown,
  field = 'reason',
  by: LifecycleActor = 'person',
  request: ToolRequest | null = null,
): Promise<Job | null> {
  const reason = validateText(field, reasonArg, Limits.messageText);
  const page = await deps.store.listJobs(
    team.id,
    { memberId: member.id, statuses: UNFINISHED_STATUSES },
    { first: 1, afterSeq: null },
  );
  const head = page.items[0];
  const begun =
    head === undefined || head.conversationId !== member.conversationId || head.phase === JobPhase.QUEUED ? null : head;
  // Nothing to end and nothing to record: no write at all.
  if (begun === null && request === null) return null;
  const tctx = context(deps);
  const { job } = await deps.store.interruptTurn({
    owner: team.owner,
    teamId: team.id,
    jobId: begun?.id ?? null,
    request,
    now: tctx.now,
    cancel: cancelStep(tctx, reason, by),
  });
  return job !== null && (isTerminal(job.phase) || job.phase === JobPhase.CANCELLING) ? job : null;
}

/** The owner's member by id, with its team. @throws DomainError NOT_FOUND. */
export async function ownedMember(
  deps: LifecycleDeps,
  owner: OwnerId,
  memberId: string,
): Promise<{ team: Team; member: Member }> {
  const [member] = await deps.store.findMembers([asMemberId(memberId)]);
  const team = member === undefined ? null : await deps.store.findTeam(owner, member.teamId);
  if (member === undefined || team === null) {
    throw new DomainError(ErrorCode.NOT_FOUND, 'Member not found.', { field: 'memberId' });
  }
  return { team, member };
}

export { findMember, teamClosed };
