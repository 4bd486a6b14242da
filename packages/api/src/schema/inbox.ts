import { type JobId, JobPhase, type JobView, type OwnerId, TeamEventKind } from '@agent-teams/core';
import { Repeater } from 'graphql-yoga';
import type { Builder } from './builder.js';
import { type ApiContext, requireViewer } from './context.js';
import type { Refs } from './refs.js';

/** Adds `Subscription.inboxChanged`: the viewer's jobs entering or leaving WAITING_INPUT. */
export function addInbox(builder: Builder, refs: Refs): void {
  builder.subscriptionField('inboxChanged', (t) =>
    t.field({
      type: refs.Job,
      description: 'Jobs of the viewer entering or leaving WAITING_INPUT.',
      subscribe: async (_root, _args, ctx) => streamInbox(ctx, requireViewer(ctx)),
      resolve: (job) => job,
    }),
  );
}

/**
 * Follows JOB_CHANGED events of the viewer's teams and pushes a job each time its waiting state
 * differs from the last one seen.
 *
 * @remarks Listening starts before the current inbox is read, so a change during that read is
 * not lost; batches are handled one at a time, in publish order.
 */
function streamInbox(ctx: ApiContext, owner: OwnerId): Repeater<JobView> {
  return new Repeater<JobView>(async (push, stop) => {
    const waiting = new Set<JobId>();
    let chain: Promise<void> = Promise.resolve();
    const unlisten = ctx.eventHub.listen((events) => {
      const jobIds = events
        .filter((event) => event.owner === owner && event.kind === TeamEventKind.JOB_CHANGED && event.jobId !== null)
        .map((event) => event.jobId as JobId);
      if (jobIds.length === 0) return;
      chain = chain.then(async () => {
        for (const job of await ctx.core.load.jobs([...new Set(jobIds)])) {
          const isWaiting = job.phase === JobPhase.WAITING_INPUT;
          if (isWaiting === waiting.has(job.id)) continue;
          if (isWaiting) waiting.add(job.id);
          else waiting.delete(job.id);
          await push(job);
        }
      });
      chain.catch((error: unknown) => stop(error));
    });
    try {
      const inbox = await ctx.core.jobs.inbox(owner, { first: 100 });
      for (const { node } of inbox.edges) waiting.add(node.id);
    } catch (error) {
      unlisten();
      throw error;
    }
    await stop;
    unlisten();
  });
}
