import { asJobId, DomainError } from '@agent-teams/core';
import { Repeater } from 'graphql-yoga';
import type { Builder } from './builder.js';
import { requireViewer } from './context.js';
import type { Refs } from './refs.js';
import type { JobProgressView } from './views.js';

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
        // Progress is not stored: each notice carries the job as it was when the subscription
        // started (its id, team and text do not change; its status is read from teamEvents).
        return new Repeater<JobProgressView>(async (push, stop) => {
          const unsubscribe = ctx.progress((notice) => {
            if (notice.jobId !== job.id) return;
            void push({ job, textDelta: notice.textDelta ?? null, toolCall: notice.toolCall ?? null });
          });
          await stop;
          unsubscribe();
        });
      },
      resolve: (progress) => progress,
    }),
  );
}
