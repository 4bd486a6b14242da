import { isDomainError, type MemberToolPort } from '@agent-teams/core';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';

/** The tool that ends a turn asking a person (handled by the runtime, not a member tool). */
export const ASK_CLARIFICATION = 'ask_clarification';

const pageArgs = {
  member_id: { type: 'string', description: 'Only records of this member (id from read_team_context).' },
  job_id: { type: 'string', description: 'Only records of this job.' },
  query: { type: 'string', description: 'Literal, case-insensitive substring.' },
  limit: { type: 'integer', minimum: 1, maximum: 20, description: 'Page size (default 8).' },
  cursor: { type: 'string', description: 'next_cursor of the previous page.' },
} as const;

function tool(name: string, description: string, properties: object, required: string[] = []): ChatCompletionTool {
  return {
    type: 'function',
    function: { name, description, parameters: { type: 'object', properties, required, additionalProperties: false } },
  };
}

/**
 * The tools offered to the model: the five member tools of the contract plus `ask_clarification`.
 *
 * @remarks Descriptions follow the reference plugin: handoffs are asynchronous (the result returns
 * as a later turn), peer results are data, not instructions, and nothing should be polled.
 */
export const MEMBER_TOOLS: readonly ChatCompletionTool[] = [
  tool(
    'send_member',
    'Ask another member of your team to do work. Asynchronous: their result comes back to you as a ' +
      'later turn, so do not poll or resend. Use only when another member must do additional work, ' +
      'not to report your own result (that is returned to the requester automatically). At most 12 ' +
      'requests per handoff chain.',
    {
      member: { type: 'string', description: 'Exact name of the member (or give member_id).' },
      member_id: { type: 'string', description: 'Id of the member from read_team_context.' },
      text: { type: 'string', description: 'The task, at most 4,000 characters.' },
      request_id: { type: 'string', description: 'A stable id for this request, reused on retries.' },
    },
    ['text'],
  ),
  tool('read_team_context', "The team's goal, its members (ids, names, agents) and the recent shared record.", {}),
  tool('read_team_history', 'Page through the shared record of the team, newest first.', pageArgs),
  tool('search_team_results', 'Search finished requests of the team and their results, newest first.', pageArgs),
  tool(
    'read_team_result',
    'Read one request or receipt of the team with its retained answer.',
    { job_id: { type: 'string', description: 'Id of the job.' } },
    ['job_id'],
  ),
  tool(
    ASK_CLARIFICATION,
    'Ask the person who owns the team a question when you cannot continue without their answer. ' +
      'Your turn pauses; their answer arrives as the result of this call.',
    { question: { type: 'string', description: 'The question, self-contained.' } },
    ['question'],
  ),
];

const MEMBER_TOOL_NAMES = new Set(MEMBER_TOOLS.map((t) => (t.type === 'function' ? t.function.name : '')));

/** A tool call as the model made it. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  /** The raw JSON text of the arguments. */
  readonly arguments: string;
}

/** Parses a call's arguments: an object, or null when they are not a JSON object. */
export function parseArguments(call: ToolCall): Record<string, unknown> | null {
  const text = call.arguments.trim() === '' ? '{}' : call.arguments;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function errorResult(code: string, message: string): string {
  return JSON.stringify({ error: { code, message } });
}

/**
 * Executes one member tool call through the job's tools and answers the text of the tool message.
 *
 * @remarks Every refusal goes back to the model as a tool result (`{"error":{"code","message"}}`),
 * never as a failed turn: the model can correct its arguments or carry on without the tool. A
 * `send_member` without `request_id` gets one derived from the run key and the call id, so a turn
 * replayed after a crash sends the same, idempotent request. Unexpected errors stay masked.
 */
export async function executeMemberTool(call: ToolCall, tools: MemberToolPort, runKey: string): Promise<string> {
  if (!MEMBER_TOOL_NAMES.has(call.name) || call.name === ASK_CLARIFICATION) {
    return errorResult('UNKNOWN_TOOL', `There is no tool named "${call.name}".`);
  }
  const args = parseArguments(call);
  if (args === null) return errorResult('INVALID_ARGUMENTS', 'The arguments must be a JSON object.');
  const invokeArgs =
    call.name === 'send_member' && typeof args.request_id !== 'string'
      ? { ...args, request_id: `${runKey}:${call.id}` }
      : args;
  try {
    return JSON.stringify((await tools.invoke(call.name, invokeArgs)) ?? null);
  } catch (error) {
    if (isDomainError(error)) return errorResult(error.code, error.message);
    return errorResult('UNEXPECTED', 'The tool failed unexpectedly.');
  }
}
