import {
  type ChangeWaitPlan,
  DomainError,
  ErrorCode,
  isDomainError,
  LEAD_ONLY_TOOLS,
  MEMBER_TOOL_SPECS,
  type MemberToolPort,
  type MemberToolSpec,
  toolErrorExtras,
} from '@agent-teams/core';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { callKey } from '../call-key.js';

/** The tool that ends a turn asking a person (handled by the runtime, not a member tool). */
export const ASK_CLARIFICATION = 'ask_clarification';

/** Arguments the runtime supplies itself when the model leaves them out (see {@link executeMemberTool}). */
const RUNTIME_SUPPLIED = new Set(['request_id', 'message_id']);

/** The idempotency key argument of each tool the runtime supplies one for. */
const SUPPLIED_KEY: Readonly<Record<string, string>> = {
  send_member: 'request_id',
  team_message: 'message_id',
  team_broadcast: 'request_id',
  team_spawn: 'request_id',
  team_interrupt: 'request_id',
  task_create: 'request_id',
  task_claim: 'request_id',
  task_update: 'request_id',
  task_complete: 'request_id',
  task_release: 'request_id',
  task_cancel: 'request_id',
};

/**
 * The tool as the model is offered it: without the idempotency key the runtime supplies.
 *
 * @remarks The runtime keys each call by its run and call id, which is what makes a replay after a
 * crash idempotent; a key the model chose itself could only collide with another of its calls
 * (`IDEMPOTENCY_CONFLICT`). Leaving the keys out also keeps them off every model call: with the
 * task writes and the interrupt keyed, they were 2.4 KB of the 14.6 KB of tool definitions each
 * call sends. MCP clients still see them (no runtime supplies theirs).
 */
function tool(spec: Pick<MemberToolSpec, 'name' | 'description' | 'inputSchema'>): ChatCompletionTool {
  const { required } = spec.inputSchema;
  const supplied = SUPPLIED_KEY[spec.name];
  const properties =
    supplied === undefined
      ? spec.inputSchema.properties
      : Object.fromEntries(Object.entries(spec.inputSchema.properties).filter(([name]) => name !== supplied));
  return {
    type: 'function',
    function: {
      name: spec.name,
      description: spec.description,
      parameters: {
        type: 'object',
        properties,
        required: required.filter((name) => !RUNTIME_SUPPLIED.has(name)),
        additionalProperties: false,
      },
    },
  };
}

/**
 * The tools offered to the model: the core's member tools (`MEMBER_TOOL_SPECS`, the one registry
 * MCP shows too) plus `ask_clarification`, which this runtime handles itself.
 */
export const MEMBER_TOOLS: readonly ChatCompletionTool[] = [
  ...MEMBER_TOOL_SPECS.map(tool),
  tool({
    name: ASK_CLARIFICATION,
    description:
      'Ask the person who owns the team a question when you cannot continue without their answer. ' +
      'Your turn pauses; their answer arrives as the result of this call.',
    inputSchema: {
      type: 'object',
      properties: { question: { type: 'string', description: 'The question, self-contained.' } },
      required: ['question'],
      additionalProperties: false,
    },
  }),
];

const nameOf = (t: ChatCompletionTool): string => (t.type === 'function' ? t.function.name : '');

/** The tools offered to the model: the lead's tools to the team's lead only (others would get NOT_LEAD). */
export function toolsFor(isLead: boolean): ChatCompletionTool[] {
  return isLead ? [...MEMBER_TOOLS] : MEMBER_TOOLS.filter((t) => !LEAD_ONLY_TOOLS.has(nameOf(t)));
}

const MEMBER_TOOL_NAMES = new Set(MEMBER_TOOLS.map(nameOf));

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

function errorResult(code: string, message: string, extras: Record<string, unknown> = {}): string {
  return JSON.stringify({ error: { code, message, ...extras } });
}

/**
 * Executes one member tool call through the job's tools and answers the text of the tool message.
 *
 * @remarks Every refusal goes back to the model as a tool result (`{"error":{"code","message"}}`),
 * never as a failed turn: the model can correct its arguments or carry on without the tool. A
 * tool with an idempotency key the model left out (`request_id` of `send_member`, `team_broadcast`,
 * `team_spawn`, `team_interrupt`, `task_create` and the task writes, `message_id` of
 * `team_message`) gets one derived from the run key and the call id, so a turn replayed after a
 * crash sends the same, idempotent request: an interrupt replayed so answers the job it ended
 * rather than ending a later turn, a task write the task it changed rather than
 * TASK_STALE_REVISION. Unexpected errors stay masked.
 */
export async function executeMemberTool(call: ToolCall, tools: MemberToolPort, runKey: string): Promise<string> {
  if (!MEMBER_TOOL_NAMES.has(call.name) || call.name === ASK_CLARIFICATION) {
    return errorResult('UNKNOWN_TOOL', `There is no tool named "${call.name}".`);
  }
  const args = parseArguments(call);
  if (args === null) return errorResult('INVALID_ARGUMENTS', 'The arguments must be a JSON object.');
  const key = SUPPLIED_KEY[call.name];
  const invokeArgs =
    key !== undefined && typeof args[key] !== 'string' ? { ...args, [key]: callKey(runKey, call.id) } : args;
  try {
    return JSON.stringify((await tools.invoke(call.name, invokeArgs)) ?? null);
  } catch (error) {
    if (isDomainError(error)) return errorResult(error.code, error.message, toolErrorExtras(error));
    return errorResult('UNEXPECTED', 'The tool failed unexpectedly.');
  }
}

/**
 * Plans the wait a `wait_for_change` call asks for, or answers the refusal as the tool message's
 * text (a run that cannot wait, arguments that are not an object, a refused plan).
 */
export async function planWait(tools: MemberToolPort, call: ToolCall): Promise<ChangeWaitPlan | string> {
  const args = parseArguments(call);
  if (args === null)
    return JSON.stringify({ error: { code: 'INVALID_ARGUMENTS', message: 'The arguments must be a JSON object.' } });
  try {
    if (tools.planWait === undefined) throw new DomainError(ErrorCode.NOT_AVAILABLE_YET, 'This run cannot wait.');
    return await tools.planWait(args);
  } catch (error) {
    if (isDomainError(error)) return JSON.stringify({ error: { code: error.code, message: error.message } });
    return JSON.stringify({ error: { code: 'UNEXPECTED', message: 'The tool failed unexpectedly.' } });
  }
}
