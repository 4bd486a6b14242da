import { DomainError, ErrorCode } from '@agent-teams/core';
import { OUTSIDE_WAIT_TOOL, waitForChangeOutside } from '../events/outside-wait.js';
import type { Builder } from './builder.js';
import type { ApiContext } from './context.js';

/**
 * The job a member-run token authorizes, or the error of this caller: an owner's token is not a
 * member run (FORBIDDEN: the tools act as a member conversation, never as a person), and no token
 * or an unknown one is UNAUTHENTICATED.
 */
async function memberRunJob(ctx: ApiContext) {
  if (ctx.viewer !== null) {
    throw new DomainError(
      ErrorCode.FORBIDDEN,
      'invokeTeamTool takes a member-run token, issued for one running job, not an owner token.',
    );
  }
  const jobId = ctx.memberRun ? await ctx.memberRun() : null;
  if (jobId === null) throw new DomainError(ErrorCode.UNAUTHENTICATED, 'A valid member-run token is required.');
  return jobId;
}

/**
 * Adds `Mutation.invokeTeamTool`: the member tools for agents running outside the server.
 *
 * @remarks Authorized by a member-run token only (`Authorization: Bearer <token>`, HTTP): the
 * server issues one per turn of a job to runtimes that run elsewhere (`MemberToolPort.issueToken`).
 * The call runs as that job's member conversation, through the same core functions the built-in
 * runtimes use, and stops working when the job ends (FORBIDDEN).
 */
export function addTeamTool(builder: Builder): void {
  const InvokeTeamToolInput = builder.inputType('InvokeTeamToolInput', {
    fields: (t) => ({
      name: t.string({
        required: true,
        description: 'send_member, read_team_context, read_team_history, search_team_results, read_team_result, ...',
      }),
      arguments: t.field({ type: 'JSON', required: true }),
    }),
  });
  builder.mutationField('invokeTeamTool', (t) =>
    t.field({
      type: 'JSON',
      description: 'Member tools, for agents running outside the server. Authorized by a member-run token only.',
      args: { input: t.arg({ type: InvokeTeamToolInput, required: true }) },
      resolve: async (_root, { input }, ctx) => {
        const jobId = await memberRunJob(ctx);
        // The caller's turn runs elsewhere: its wait holds this request (events/outside-wait.ts).
        if (input.name === OUTSIDE_WAIT_TOOL) return waitForChangeOutside(ctx, jobId, input.arguments);
        return ctx.core.tools.invoke(jobId, input.name, input.arguments);
      },
    }),
  );
}
