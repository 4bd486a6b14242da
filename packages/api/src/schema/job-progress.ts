import { asJobId, DomainError, type JobView } from '@agent-teams/core';
import type { EventHub } from '../events/event-hub.js';
import type { JobProgressNotice } from '../events/progress-hub.js';
import { ProgressStream } from '../server/progress-stream.js';
import type { Builder } from './builder.js';
import { type ApiContext, requireViewer } from './context.js';
import { JobWatches } from './job-watch.js';
import type { Refs } from './refs.js';
import type { JobProgressView } from './views.js';

/** The view of each notice, made by the first subscription that hears it (see {@link progressView}). */
const views = new WeakMap<JobProgressNotice, JobProgressView>();

/**
 * The one view of `notice` for every subscription of its job.
 *
 * @remarks The progress hub hands the same notice object to every listener, and the live server
 * shares a serialized result between identical subscriptions by the identity of the event object
 * (`server/live/shared-results.ts`). A view per subscription would make every subscriber of a job
 * execute and serialize each text delta on its own; one view per notice makes it once per group.
 * The view carries the job as the server's watch of it stands when the notice is handed out
 * (`job-watch.ts`), the same object for every subscription of the job on this server, since the
 * hub hands a notice to all of them in one synchronous pass. Freed with the notice (a WeakMap).
 */
export function progressView(notice: JobProgressNotice, job: JobView): JobProgressView {
  const shared = views.get(notice);
  if (shared !== undefined && shared.job.id === job.id) return shared;
  const view: JobProgressView = { job, textDelta: notice.textDelta ?? null, toolCall: notice.toolCall ?? null };
  views.set(notice, view);
  return view;
}

/** The last view of each ended job: one per job, so the group shares its serialization too. */
const finalViews = new WeakMap<JobView, JobProgressView>();

/** The view a stream ends with: the job in its terminal status, no text, no tool call. */
export function finalView(job: JobView): JobProgressView {
  let view = finalViews.get(job);
  if (view === undefined) {
    view = { job, textDelta: null, toolCall: null };
    finalViews.set(job, view);
  }
  return view;
}

/** The watches of each server, by its event hub (what keeps them current; one per server). */
const watchesByHub = new WeakMap<EventHub, JobWatches>();

function jobWatches(ctx: ApiContext): JobWatches {
  let watches = watchesByHub.get(ctx.eventHub);
  if (watches === undefined) {
    const { core } = ctx;
    watches = new JobWatches(ctx.eventHub, async (id) => (await core.load.jobs([id]))[0] ?? null);
    watchesByHub.set(ctx.eventHub, watches);
  }
  return watches;
}

/** What `Subscription.jobProgress` promises (the schema's description; docs/reference.md says more). */
const JOB_PROGRESS_DESCRIPTION =
  'Token and tool-call progress of one job while it runs. Each payload shows the job as it is when sent. ' +
  'Once the job is COMPLETED, FAILED or CANCELLED, one last payload shows that status (no textDelta or toolCall) ' +
  'and the subscription completes; for a job already finished that payload comes at once.';

/** Adds `JobProgress` and `Subscription.jobProgress` (live text deltas and tool calls of a job). */
export function addJobProgress(builder: Builder, refs: Refs): void {
  refs.JobProgress.implement({
    description: 'Live progress of a running job; not retained (the final answer is on the job).',
    fields: (t) => ({
      job: t.field({ type: refs.Job, resolve: (progress) => progress.job }),
      textDelta: t.exposeString('textDelta', {
        nullable: true,
        description: 'Text the agent produced since the previous event.',
      }),
      toolCall: t.exposeString('toolCall', {
        nullable: true,
        description: 'Name of a tool the agent started calling.',
      }),
    }),
  });

  builder.subscriptionField('jobProgress', (t) =>
    t.field({
      type: refs.JobProgress,
      description: JOB_PROGRESS_DESCRIPTION,
      args: { jobId: t.arg.id({ required: true }) },
      subscribe: async (_root, args, ctx) => {
        const owner = requireViewer(ctx);
        const jobId = asJobId(String(args.jobId));
        let end: (job: JobView | null) => void = () => {};
        // Followed before the read, so a status change committed during it is not missed.
        const follow = jobWatches(ctx).follow(jobId, (job) => end(job));
        let job: JobView | null;
        try {
          job = await ctx.core.jobs.get(owner, jobId);
        } catch (error) {
          follow.leave();
          throw error;
        }
        if (job === null) {
          follow.leave();
          throw new DomainError('NOT_FOUND', 'No such job.');
        }
        let unsubscribe: () => void = () => {};
        const stream = new ProgressStream<JobProgressView>(() => {
          unsubscribe();
          follow.leave();
        });
        // The last view shows the terminal status, then the stream ends (`complete`); a job that
        // is gone (its team deleted) has nothing to show and just ends.
        end = (last) => {
          if (last !== null) stream.push(finalView(last));
          stream.end();
        };
        unsubscribe = ctx.progress((notice) => {
          if (notice.jobId === jobId) stream.push(progressView(notice, follow.job));
        }, jobId);
        // May end the stream at once: the job is already finished.
        follow.start(job);
        return stream;
      },
      resolve: (progress) => progress,
    }),
  );
}
