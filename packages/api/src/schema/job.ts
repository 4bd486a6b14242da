import { asJobId, JobPhase, type JobStatus, jobResultOf, statusOf } from '@agent-teams/core';
import type { Builder } from './builder.js';
import { requireViewer } from './context.js';
import type { Refs } from './refs.js';

/**
 * Adds `Job` with `Requester`, `InputRequest` and `JobResult`, `Query.job` and `Team.jobs`.
 *
 * @remarks The internal phase never leaks: `status` is `statusOf(phase)` (ADMITTING shows as
 * QUEUED).
 */
export function addJob(builder: Builder, refs: Refs): void {
  refs.Job.implement({
    interfaces: [refs.Node],
    isTypeOf: (value) => typeof value === 'object' && value !== null && 'phase' in value,
    fields: (t) => ({
      id: t.exposeID('id'),
      kind: t.field({ type: refs.JobKind, resolve: (job) => job.kind }),
      status: t.field({ type: refs.JobStatus, resolve: (job) => statusOf(job.phase) }),
      team: t.field({
        type: refs.Team,
        resolve: async (job, _args, ctx) => {
          const team = await ctx.loaders.teams.load(job.teamId);
          if (team === null) throw new Error(`team ${job.teamId} of job ${job.id} is missing`);
          return team;
        },
      }),
      member: t.field({
        type: refs.Member,
        nullable: true,
        description: 'Who executes it. For a RECEIPT: the requesting member it is delivered to (null: a person).',
        resolve: (job, _args, ctx) => (job.memberId ? ctx.loaders.members.load(job.memberId) : null),
      }),
      requester: t.field({ type: refs.Requester, resolve: (job) => job.requester }),
      parent: t.field({
        type: refs.Job,
        nullable: true,
        description: 'The request whose run sent this handoff (REQUEST), or whose result this delivers (RECEIPT).',
        resolve: (job, _args, ctx) => (job.parentId ? ctx.loaders.jobs.load(job.parentId) : null),
      }),
      receipt: t.field({
        type: refs.Job,
        nullable: true,
        description: 'REQUEST only: the receipt delivering its result back to the requester.',
        resolve: (job, _args, ctx) => (job.kind === 'REQUEST' ? ctx.loaders.receipts.load(job) : null),
      }),
      rootId: t.exposeID('rootId', { description: 'Id of the first request of this handoff chain.' }),
      text: t.exposeString('text', { description: 'The task text (REQUEST) or the delivered result (RECEIPT).' }),
      input: t.field({
        type: refs.InputRequest,
        nullable: true,
        resolve: (job) => (job.phase === JobPhase.WAITING_INPUT ? job.pendingInput : null),
      }),
      result: t.field({ type: refs.JobResult, resolve: (job) => jobResultOf(job) }),
      error: t.exposeString('error', { nullable: true }),
      conversationId: t.exposeString('conversationId', { nullable: true }),
      runId: t.exposeString('runId', { nullable: true }),
      createdAt: t.field({ type: 'DateTime', resolve: (job) => job.createdAt }),
      startedAt: t.field({ type: 'DateTime', nullable: true, resolve: (job) => job.startedAt }),
      finishedAt: t.field({ type: 'DateTime', nullable: true, resolve: (job) => job.finishedAt }),
    }),
  });
  addJobParts(builder, refs);
  addJobFields(builder, refs);
}

function addJobParts(_builder: Builder, refs: Refs): void {
  refs.Requester.implement({
    description: 'Who asked: a person (member null) or a member (its conversation).',
    fields: (t) => ({
      member: t.field({
        type: refs.Member,
        nullable: true,
        resolve: (requester, _args, ctx) => (requester.memberId ? ctx.loaders.members.load(requester.memberId) : null),
      }),
      conversationId: t.exposeString('conversationId', { nullable: true }),
    }),
  });
  refs.InputRequest.implement({
    fields: (t) => ({
      kind: t.field({ type: refs.InputKind, resolve: (input) => input.kind }),
      requestId: t.string({
        description: 'Identifies this question; send it as `RespondInput.inputRequestId` to detect a changed one.',
        resolve: (input) => input.requestId,
      }),
      question: t.string({
        nullable: true,
        description: 'The question, at most 8,000 UTF-8 bytes (CLARIFICATION).',
        resolve: (input) => (input.kind === 'CLARIFICATION' ? input.question : null),
      }),
      payload: t.field({
        type: 'JSON',
        nullable: true,
        description: 'What the runtime attached to the interrupt (INTERRUPT).',
        resolve: (input) => (input.kind === 'INTERRUPT' ? input.payload : null),
      }),
    }),
  });
  refs.JobResult.implement({
    fields: (t) => ({
      available: t.exposeBoolean('available', {
        description: 'False when there is no retained answer: unfinished, cancelled, or no longer retained.',
      }),
      // Exact about the cut answer: the notice (`TRUNCATION_NOTICE` in the core) comes after the
      // 6,000 bytes, so a client sizing a buffer must allow for it.
      text: t.exposeString('text', {
        nullable: true,
        description:
          'The answer (a failed job: its error), at most 6,000 UTF-8 bytes; a completed answer that was cut ' +
          '(truncated) keeps at most its first 6,000 bytes, cut at a character boundary, followed by the ' +
          '63-byte notice "\\n[Truncated; open the member conversation for the full answer.]", so at most ' +
          '6,063 bytes in all.',
      }),
      truncated: t.exposeBoolean('truncated', {
        nullable: true,
        description: 'True when the answer was cut; null when that is unknown.',
      }),
    }),
  });
}

function addJobFields(builder: Builder, refs: Refs): void {
  builder.queryField('job', (t) =>
    t.field({
      type: refs.Job,
      nullable: true,
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, args, ctx) => ctx.core.jobs.get(requireViewer(ctx), asJobId(String(args.id))),
    }),
  );

  builder.objectField(refs.Team, 'jobs', (t) =>
    t.field({
      type: refs.JobConnection,
      description: 'Requests and receipts in creation order (oldest first).',
      args: {
        first: t.arg.int({ defaultValue: 20 }),
        after: t.arg.string(),
        kind: t.arg({ type: refs.JobKind }),
        statuses: t.arg({
          type: [refs.JobStatus],
          description: 'Only jobs in one of these statuses; absent or null: any status; an empty list matches none.',
        }),
        memberId: t.arg.id(),
      },
      resolve: (team, args, ctx) =>
        ctx.core.jobs.list(team, {
          ...args,
          statuses: args.statuses as readonly JobStatus[] | null | undefined,
          memberId: args.memberId === null || args.memberId === undefined ? args.memberId : String(args.memberId),
        }),
    }),
  );
}
