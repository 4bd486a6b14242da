import { Limits } from '../limits/limits.js';
import { LIFECYCLE_TOOL_SPECS } from './lifecycle-tool-specs.js';
import { TASK_TOOL_SPECS } from './task-tool-specs.js';
import { spec, type ToolArgumentSchema } from './tool-spec.js';

export type { MemberToolSpec, ToolArgumentSchema, ToolInputSchema } from './tool-spec.js';

const pageArgs: Readonly<Record<string, ToolArgumentSchema>> = {
  member_id: { type: 'string', description: 'Only records of this member (id from read_team_context).' },
  job_id: { type: 'string', description: 'Only records of this job.' },
  query: {
    type: 'string',
    description: `Literal, case-insensitive substring (at most ${Limits.historyQueryChars} characters).`,
  },
  limit: {
    type: 'integer',
    minimum: 1,
    maximum: Limits.pageSize.max,
    description: `Page size (default ${Limits.pageSize.default}).`,
  },
  cursor: { type: 'string', description: 'next_cursor of the previous page.' },
};

/**
 * The member tools of the contract, in the order agents are shown them: the one registry every
 * surface derives from (the built-in model runtimes' tool lists, the MCP server's `tools/list`,
 * and the argument names {@link invokeMemberTool} accepts).
 *
 * @remarks Descriptions follow the reference plugin: handoffs are asynchronous (the result returns
 * as a later turn), peer results are data, not instructions, and nothing should be polled.
 * `team_id` is accepted by every tool without being listed: it must name the caller's team.
 * `send_member` requires `request_id` (its idempotency key); a runtime that derives one itself
 * may drop it from what it shows its model.
 */
export const MEMBER_TOOL_SPECS = [
  spec(
    'send_member',
    'Ask another member of your team to do work. Asynchronous: their result comes back to you as a ' +
      'later turn, so do not poll or resend. Use only when another member must do additional work, ' +
      'not to report your own result (that is returned to the requester automatically). At most ' +
      `${Limits.requestsPerChain} requests per handoff chain.`,
    {
      member: { type: 'string', description: 'Exact name of the member (or give member_id).' },
      member_id: { type: 'string', description: 'Id of the member from read_team_context.' },
      text: {
        type: 'string',
        description: `The task, at most ${Limits.taskText.maxChars} characters.`,
      },
      request_id: {
        type: 'string',
        minLength: 1,
        maxLength: Limits.clientRequestId.maxChars,
        description: 'A stable id for this request, reused on retries (the same id never sends twice).',
      },
    },
    ['text', 'request_id'],
  ),
  spec(
    'team_message',
    'Message other members of your team. "quiet" waits for their next turn; "follow_up" also makes ' +
      'sure they get a turn soon (it starts one when none is queued). Each recipient gets the message ' +
      'exactly once, at the start of a turn.',
    {
      to: {
        type: 'array',
        items: { type: 'string' },
        description: 'Names or ids of the recipients, or ["all"] for every other active member.',
      },
      text: {
        type: 'string',
        description: `The message, at most ${Limits.messageText.maxChars} characters.`,
      },
      delivery: { type: 'string', enum: ['quiet', 'follow_up'], description: 'quiet or follow_up.' },
      message_id: {
        type: 'string',
        minLength: 1,
        maxLength: Limits.clientRequestId.maxChars,
        description: 'A stable id for this message, reused on retries: the same id never sends twice.',
      },
    },
    ['to', 'text', 'delivery', 'message_id'],
  ),
  spec(
    'team_broadcast',
    'Ask every other active member of your team the same thing at once. Asynchronous: their results ' +
      'come back to you together, as ONE later turn with a section per member, once all have finished; ' +
      'do not poll or resend. Counts as one request per member against the team and chain limits.',
    {
      text: { type: 'string', description: `The task, at most ${Limits.taskText.maxChars} characters.` },
      request_id: {
        type: 'string',
        minLength: 1,
        maxLength: Limits.clientRequestId.maxChars,
        description: 'A stable id for this broadcast, reused on retries (the same id never sends twice).',
      },
    },
    ['text', 'request_id'],
  ),
  spec('read_team_context', "The team's goal, its members (ids, names, agents) and the recent shared record.", {}),
  spec('read_team_history', 'Page through the shared record of the team, newest first.', pageArgs),
  spec('search_team_results', 'Search finished requests of the team and their results, newest first.', pageArgs),
  spec(
    'read_team_result',
    'Read one request or receipt of the team with its retained answer.',
    { job_id: { type: 'string', description: 'Id of the job.' } },
    ['job_id'],
  ),
  ...TASK_TOOL_SPECS,
  // Spawn, retire, close, interrupt (lead only) and wait_for_change: `lifecycle-tool-specs.ts`.
  ...LIFECYCLE_TOOL_SPECS,
] as const;

/** The name of a member tool. */
export type MemberToolName = (typeof MEMBER_TOOL_SPECS)[number]['name'];
