import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { Limits } from '../limits/limits.js';
import type { JobId } from '../model/ids.js';
import { ACTIVE_PHASES, type Job, JobStatus, type JobView, statusOf } from '../model/job.js';
import type { Member, Team } from '../model/team.js';
import { nowTimestamp } from '../ports/clock.js';
import type { JobReads, JobWrites } from '../ports/team-store.js';
import { validateClientRequestId, validateText } from '../text/validate-text.js';
import type { UsesStore } from './core-types.js';
import { chainHops, decideHandoff, MAX_CHAIN_WALK, repeatsAncestor } from './handoff-decisions.js';
import { findJobViews } from './job-views.js';
import { memberRetired } from './lifecycle-decisions.js';
import type { RequestPlan } from './request-decisions.js';

/** The store roles these use cases depend on. */
type Deps = UsesStore<JobReads & JobWrites>;

/** Who calls a member tool: a member conversation of a team, through one of its unfinished jobs. */
export interface ToolCaller {
  readonly team: Team;
  /** The member whose conversation calls. */
  readonly member: Member;
  /** The team's roster, in roster order. */
  readonly roster: readonly Member[];
  /** The job the call is bound to (a runtime's turn, or the job of a member-run token). */
  readonly job: Job;
}

/** `send_member` arguments after shape checks. */
export interface SendMemberArgs {
  readonly memberId?: unknown;
  readonly member?: unknown;
  readonly text?: unknown;
  readonly requestId?: unknown;
}

/** The statuses of a job that has not finished. */
export const UNFINISHED_STATUSES = [
  JobStatus.QUEUED,
  JobStatus.RUNNING,
  JobStatus.RESUMING,
  JobStatus.CANCELLING,
  JobStatus.WAITING_INPUT,
  JobStatus.WAITING_CHANGE,
];

function targetOf(caller: ToolCaller, args: SendMemberArgs): Member {
  const byId = args.memberId;
  const byName = args.member;
  if ((byId === undefined || byId === null) && (byName === undefined || byName === null)) {
    throw new DomainError(ErrorCode.INVALID_INPUT, 'Name the member with member_id or member.', { field: 'member_id' });
  }
  const field = byId === undefined || byId === null ? 'member' : 'member_id';
  const wanted = field === 'member_id' ? byId : byName;
  if (typeof wanted !== 'string') {
    throw new DomainError(ErrorCode.INVALID_INPUT, `${field} must be a string.`, { field });
  }
  const target =
    field === 'member_id'
      ? caller.roster.find((m) => m.id === wanted)
      : caller.roster.find((m) => m.name === wanted.trim());
  if (target === undefined) throw new DomainError(ErrorCode.NOT_FOUND, 'No such member in this team.', { field });
  if (target.retiredAt !== null) throw memberRetired(field);
  if (target.id === caller.member.id) {
    throw new DomainError(ErrorCode.SELF_REQUEST, 'Choose another member: a member cannot ask itself.', { field });
  }
  return target;
}

/**
 * The job executing in the caller's conversation: its oldest unfinished job, provided its
 * admission began and it is not waiting for input; otherwise null (the handoff starts a chain).
 * Later queued jobs of the conversation never lend their parent or budget.
 */
export async function executingJob(deps: UsesStore<JobReads>, caller: ToolCaller): Promise<JobView | null> {
  // Every job of a member's conversation is the member's: requests to it and receipts for it.
  const page = await deps.store.listJobs(
    caller.team.id,
    { memberId: caller.member.id, statuses: UNFINISHED_STATUSES },
    { first: 1, afterSeq: null },
  );
  const head = page.items[0];
  if (head === undefined || head.conversationId !== caller.member.conversationId) return null;
  return ACTIVE_PHASES.includes(head.phase) ? head : null;
}

/** The parent and its ancestors, nearest first (bounded walk; ancestors never change). */
async function ancestorsOf(deps: Deps, parent: JobView): Promise<JobView[]> {
  const chain: JobView[] = [parent];
  let next: JobId | null = parent.parentId;
  while (next !== null && chain.length < MAX_CHAIN_WALK) {
    const [job] = await findJobViews(deps.store, [next]);
    if (job === undefined || job.teamId !== parent.teamId) break;
    chain.push(job);
    next = job.parentId;
  }
  return chain;
}

/**
 * `send_member`: a member asks a peer for work. The request joins the chain of the job executing
 * in the caller's conversation (or starts its own), is idempotent by the caller's `request_id`,
 * and its result returns later as a receipt turn in the caller's conversation.
 * @throws DomainError INVALID_INPUT, NOT_FOUND, SELF_REQUEST, IDEMPOTENCY_CONFLICT, HANDOFF_LOOP,
 * REQUEST_LIMIT.
 */
export async function sendMember(
  deps: Deps,
  caller: ToolCaller,
  args: SendMemberArgs,
): Promise<{ readonly id: JobId; readonly status: JobStatus }> {
  const text = validateText('text', args.text, Limits.taskText);
  const clientKey = validateClientRequestId(args.requestId, 'request_id');
  const target = targetOf(caller, args);
  const parent = await executingJob(deps, caller);
  const ancestors = parent === null ? [] : chainHops(await ancestorsOf(deps, parent));
  const loops = repeatsAncestor({ from: caller.member.id, to: target.id, text }, ancestors);
  const plan: RequestPlan = {
    recipients: [
      {
        memberId: target.id,
        conversationId: target.conversationId,
        jobId: deps.ids.jobId(),
        recordId: deps.ids.recordId(),
      },
    ],
    text,
    clientKey,
    requester: { memberId: caller.member.id, conversationId: caller.member.conversationId },
    chain: parent === null ? null : { parentId: parent.id, rootId: parent.rootId },
  };
  const requesterConversationId = caller.member.conversationId;
  const [job] = await deps.store.enqueueRequests({
    owner: caller.team.owner,
    teamId: caller.team.id,
    // Every roster member under the caller's key, so a request_id reused for another target is seen.
    keys: caller.roster.map((m) => ({ requesterConversationId, clientKey, memberId: m.id })),
    roots: parent === null ? [] : [parent.rootId],
    now: nowTimestamp(deps.clock),
    decide: (snapshot) => decideHandoff(plan, loops, snapshot),
  });
  if (job === undefined) throw new Error('[agent-teams/core] a handoff enqueue returned no job');
  return { id: job.id, status: statusOf(job.phase) };
}
