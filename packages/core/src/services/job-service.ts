import { notFound } from '../errors/domain-error.js';
import { transition } from '../jobs/job-machine.js';
import { Limits } from '../limits/limits.js';
import { asJobId, asMemberId, type OwnerId } from '../model/ids.js';
import { isTerminal, type JobKind, JobPhase, type JobStatus, type JobView } from '../model/job.js';
import type { Team } from '../model/team.js';
import { hashFilter } from '../pagination/cursor.js';
import { nowTimestamp } from '../ports/clock.js';
import type { JobFilter, JobReads, JobWrites } from '../ports/team-store.js';
import { type CursorScope, seqPageRequest, toCountedConnection } from './connections.js';
import type { CancelOutcome, Connection, Core, PageArgs, UsesStore } from './core-types.js';
import { findJobViews } from './job-views.js';
import { respondToJob } from './respond-service.js';

/** The store roles these use cases depend on. */
type Deps = UsesStore<JobReads & JobWrites>;

const JOB_PAGE = { defaultSize: Limits.connectionPage.default, maxSize: Limits.connectionPage.max };
const INBOX_SCOPE: CursorScope = { kind: 'inbox' };

/** Arguments of `Team.jobs`. */
export type JobListArgs = {
  kind?: JobKind | null;
  statuses?: readonly JobStatus[] | null;
  memberId?: string | null;
} & PageArgs;

/**
 * A page of a team's jobs, oldest first, with the filtered total. The cursor carries a hash of
 * the filter (statuses in a canonical order), so it cannot be replayed against another filter.
 * Absent or null `statuses`: any status; an empty list matches no status, so the page is empty
 * (as `dependsOn: []` names no task: a list argument means exactly what it lists).
 */
export async function listJobs(
  deps: UsesStore<JobReads>,
  team: Team,
  args: JobListArgs,
): Promise<Connection<JobView> & { totalCount: number }> {
  const filter: JobFilter = {
    kind: args.kind ?? null,
    // `[]` stays `[]`, not null: it selects nothing, and its cursors must not pass for the unfiltered list's.
    statuses: args.statuses == null ? null : [...new Set(args.statuses)].sort(),
    memberId: args.memberId == null ? null : asMemberId(args.memberId),
  };
  const scope: CursorScope = { kind: 'job', filter: hashFilter({ team: team.id, ...filter }) };
  const page = await deps.store.listJobs(team.id, filter, seqPageRequest(args, scope, JOB_PAGE));
  return toCountedConnection(page, (job) => job.seq, scope);
}

/**
 * `jobs.cancel`: a finished job is returned unchanged; any other moves through the state machine
 * (QUEUED ends at once as CANCELLED; an admitted one becomes CANCELLING and the scheduler stops
 * its run, woken by the commit's event).
 */
async function cancelJob(deps: Deps, owner: OwnerId, jobId: string): Promise<CancelOutcome> {
  const id = asJobId(jobId);
  const found = await deps.store.findJob(owner, id);
  if (found === null) throw notFound('job');
  if (isTerminal(found.phase)) return { job: found, alreadyFinished: true };
  // Already being cancelled (a repeated click, a second tab): nothing more to ask.
  if (found.phase === JobPhase.CANCELLING) return { job: found, alreadyFinished: false };
  const now = nowTimestamp(deps.clock);
  const { job, changed } = await deps.store.updateJob(
    id,
    // It may have finished (or begun cancelling) since the read: then leave it as it is.
    (current) =>
      isTerminal(current.phase) || current.phase === JobPhase.CANCELLING
        ? { ok: true, job: current, effects: [] }
        : transition(current, { type: 'CANCEL' }, { now, ids: deps.ids }),
    { now, owner },
  );
  return { job, alreadyFinished: !changed && isTerminal(job.phase) };
}

/** Builds the `jobs` use cases. */
export function jobService(deps: Deps): Core['jobs'] {
  return {
    // No caller shows the frozen input (GraphQL's `job`, `node`, `jobProgress`; A2A's tasks):
    // read without it (decision 0246), scoped to the owner as `findJob` is.
    async get(owner, jobId) {
      const [job] = await findJobViews(deps.store, [asJobId(jobId)]);
      return job !== undefined && job.owner === owner ? job : null;
    },
    list: (team, args) => listJobs(deps, team, args),
    cancel: (owner, jobId) => cancelJob(deps, owner, jobId),
    respond: (owner, input) => respondToJob(deps, owner, input),
    async inbox(owner, page) {
      const jobs = await deps.store.listWaitingJobs(owner, seqPageRequest(page, INBOX_SCOPE, JOB_PAGE));
      return toCountedConnection(jobs, (job) => job.seq, INBOX_SCOPE);
    },
  };
}
