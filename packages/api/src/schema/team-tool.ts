import type { Builder } from './builder.js';
import { notAvailableYet, requireViewer } from './context.js';

/**
 * Adds `Mutation.invokeTeamTool`: member tools for agents running outside the server.
 *
 * @remarks It needs member-run tokens, which arrive with the collaboration issue; until then it
 * answers NOT_AVAILABLE_YET (after the usual authentication check).
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
      resolve: (_root, _args, ctx) => {
        requireViewer(ctx);
        return notAvailableYet('invokeTeamTool', 'collaboration');
      },
    }),
  );
}
