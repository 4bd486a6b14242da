import type { Job } from '@agent-teams/core';
import type { Builder } from './builder.js';
import { requireViewer } from './context.js';
import type { Refs } from './refs.js';

/**
 * Adds the job mutations: `sendRequest` (one request per recipient), `cancelJob` and `respond`
 * (answers a job waiting for input; see the core's `respond-service.ts`).
 */
export function addJobMutations(builder: Builder, refs: Refs): void {
  const SendRequestInput = builder.inputType('SendRequestInput', {
    fields: (t) => ({
      teamId: t.id({ required: true }),
      memberIds: t.idList({ required: true, description: 'One request per recipient, in this order.' }),
      text: t.string({ required: true }),
      clientRequestId: t.string({
        required: true,
        description: "Idempotency key; each recipient's request is keyed by (clientRequestId, memberId).",
      }),
    }),
  });
  const RespondInput = builder.inputType('RespondInput', {
    fields: (t) => ({
      jobId: t.id({ required: true }),
      response: t.field({
        type: 'JSON',
        required: true,
        description: 'A string for CLARIFICATION; any JSON value for INTERRUPT. At most 8,000 UTF-8 bytes.',
      }),
      clientRequestId: t.string({ required: true }),
      inputRequestId: t.string({
        required: false,
        description:
          'The `InputRequest.requestId` the client answered. When given and no longer the pending question: INPUT_CHANGED.',
      }),
    }),
  });
  const CancelJobInput = builder.inputType('CancelJobInput', { fields: (t) => ({ jobId: t.id({ required: true }) }) });
  const SendRequestPayload = builder.objectRef<{ readonly jobs: readonly Job[] }>('SendRequestPayload').implement({
    fields: (t) => ({ jobs: t.field({ type: [refs.Job], resolve: (payload) => payload.jobs }) }),
  });
  const RespondPayload = builder.objectRef<{ readonly job: Job }>('RespondPayload').implement({
    fields: (t) => ({ job: t.field({ type: refs.Job, resolve: (payload) => payload.job }) }),
  });
  refs.CancelJobPayload.implement({
    fields: (t) => ({
      job: t.field({ type: refs.Job, resolve: (payload) => payload.job }),
      alreadyFinished: t.exposeBoolean('alreadyFinished', {
        description: 'True when the job had already finished: nothing changed.',
      }),
    }),
  });

  builder.mutationFields((t) => ({
    sendRequest: t.field({
      type: SendRequestPayload,
      args: { input: t.arg({ type: SendRequestInput, required: true }) },
      resolve: async (_root, { input }, ctx) => ({
        jobs: await ctx.core.requests.send(requireViewer(ctx), {
          ...input,
          teamId: String(input.teamId),
          memberIds: input.memberIds.map(String),
        }),
      }),
    }),
    respond: t.field({
      type: RespondPayload,
      args: { input: t.arg({ type: RespondInput, required: true }) },
      resolve: async (_root, { input }, ctx) => ({
        job: await ctx.core.jobs.respond(requireViewer(ctx), {
          jobId: String(input.jobId),
          response: input.response,
          clientRequestId: input.clientRequestId,
          inputRequestId: input.inputRequestId ?? null,
        }),
      }),
    }),
    cancelJob: t.field({
      type: refs.CancelJobPayload,
      args: { input: t.arg({ type: CancelJobInput, required: true }) },
      resolve: (_root, { input }, ctx) => ctx.core.jobs.cancel(requireViewer(ctx), String(input.jobId)),
    }),
  }));
}
