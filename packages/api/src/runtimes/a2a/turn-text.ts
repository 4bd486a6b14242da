import { type RunContext, type TurnInput, teamMessageEntry } from '@agent-teams/core';

/**
 * The text a remote agent receives for a turn, with its provenance: the team messages delivered
 * into the turn first (each `Team message <id> from <name>:` and its text; a message turn has
 * nothing else), then a request as its task text (prefixed with the asking member's name when a
 * member asked), a receipt as the result of the request the member sent, an answer as the
 * person's answer.
 */
export function turnText(input: TurnInput): string {
  const delivered = (input.messages ?? []).map(teamMessageEntry);
  if (input.kind === 'message') return delivered.join('\n\n');
  return [...delivered, ownText(input)].join('\n\n');
}

function ownText(input: TurnInput): string {
  if (input.kind === 'receipt' && input.receipt !== null) {
    const { fromMemberName, status, result, requestId } = input.receipt;
    return `Result from member "${fromMemberName}" (${status}) of your request ${requestId}:\n${result}`;
  }
  if (input.kind === 'request' && input.requesterName !== null) {
    return `Request from member "${input.requesterName}":\n${input.text}`;
  }
  return input.text;
}

/**
 * `metadata.agentTeams` of a turn's message: who the turn is for, and how the remote agent reaches
 * its team tools while the job runs (a member-run token, issued now and never stored in plain text).
 */
export async function turnMetadata(context: RunContext, mcpUrl: string | null): Promise<Record<string, unknown>> {
  const memberToken = context.tools.issueToken ? await context.tools.issueToken() : null;
  return {
    agentTeams: {
      teamId: context.teamId,
      memberId: context.memberId,
      jobId: context.jobId,
      mcpUrl,
      memberToken,
    },
  };
}
