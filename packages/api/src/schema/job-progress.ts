import { asJobId, DomainError, type JobView } from '@agent-teams/core';
import type { JobProgressNotice } from '../events/progress-hub.js';
import { ProgressStream } from '../server/progress-stream.js';
import type { Builder } from './builder.js';
import { requireViewer } from './context.js';
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
 * The view carries the job snapshot of the subscription that made it: the same job (the hub
 * filter matched its id, and only its owner can subscribe to it), whose id, team and text do
 * not change; its status is read from `teamEvents`. Freed with the notice (a WeakMap).
 */
export function progressView(notice: JobProgressNotice, job: JobView): JobProgressView {
  const shared = views.get(notice);
  if (shared !== undefined && shared.job.id === job.id) return shared;
  const view: JobProgressView = { job, textDelta: notice.textDelta ?? null, toolCall: notice.toolCall ?? null };
  views.set(notice, view);
  return view;
}

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
      description: 'Token and tool-call progress of one job while it runs.',
      args: { jobId: t.arg.id({ required: true }) },
      subscribe: async (_root, args, ctx) => {
        const job = await ctx.core.jobs.get(requireViewer(ctx), asJobId(String(args.jobId)));
        if (job === null) throw new DomainError('NOT_FOUND', 'No such job.');
        // Progress is not stored: each notice carries the job as it was when a subscription to it
        // started (its id, team and text do not change; its status is read from teamEvents).
        let unsubscribe: () => void = () => {};
        const stream = new ProgressStream<JobProgressView>(() => unsubscribe());
        unsubscribe = ctx.progress((notice) => {
          if (notice.jobId === job.id) stream.push(progressView(notice, job));
        }, job.id);
        return stream;
      },
      resolve: (progress) => progress,
    }),
  );
}
