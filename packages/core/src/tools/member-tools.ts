import { teamContextJson } from '../context/team-context.js';
import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { BROADCAST_KEY_PREFIX } from '../jobs/broadcast.js';
import { Limits } from '../limits/limits.js';
import { asJobId, type JobId } from '../model/ids.js';
import { isTerminal } from '../model/job.js';
import type { MemberToolPort } from '../ports/agent-runtime.js';
import type {
  ConversationLog,
  JobReads,
  JobWrites,
  Mailbox,
  RecordReads,
  Tasks,
  TeamLifecycle,
  TeamReads,
} from '../ports/team-store.js';
import type { UsesStore } from '../services/core-types.js';
import { sendMember, type ToolCaller } from '../services/handoff-service.js';
import { findUnstorableText } from '../text/text-measure.js';
import { invokeLifecycleTool, isLifecycleTool } from './lifecycle-tools.js';
import { MEMBER_TOOL_SPECS, type MemberToolName } from './member-tool-specs.js';
import type { TeamReadArgs } from './read-args.js';
import { invokeTaskTool, isTaskTool } from './task-tools.js';
import { teamBroadcast } from './team-broadcast-tool.js';
import { teamMessage } from './team-message-tool.js';
import { readHistory, readResult, readResults } from './team-reads.js';
import { inToolArgumentNames } from './tool-argument-names.js';
import { planChangeWait } from './wait-tool.js';

/** The store roles these use cases depend on. */
export type MemberToolDeps = UsesStore<
  TeamReads & JobReads & RecordReads & JobWrites & Mailbox & Tasks & TeamLifecycle & ConversationLog
>;

/** The member tools of the contract, in the order agents are shown them (see `member-tool-specs.ts`). */
export const MEMBER_TOOL_NAMES: readonly MemberToolName[] = MEMBER_TOOL_SPECS.map((tool) => tool.name);

/** The arguments each tool accepts: its schema's, plus `team_id` everywhere (it must name the caller's team). */
const ALLOWED_ARGS: ReadonlyMap<string, readonly string[]> = new Map(
  MEMBER_TOOL_SPECS.map((tool) => [tool.name, ['team_id', ...Object.keys(tool.inputSchema.properties)]]),
);

const forbidden = (message: string): DomainError => new DomainError(ErrorCode.FORBIDDEN, message);

/**
 * The caller bound to `jobId`: the job must exist and be unfinished, and run in a current member
 * conversation of its team. Anything else is FORBIDDEN (a finished job's tools are closed).
 */
export async function resolveToolCaller(deps: MemberToolDeps, jobId: JobId): Promise<ToolCaller> {
  const [job] = await deps.store.findJobs([jobId]);
  if (job === undefined || isTerminal(job.phase)) {
    throw forbidden('This member run has ended; its member tools are closed.');
  }
  const [[team], roster] = await Promise.all([
    deps.store.findTeams([job.teamId]),
    deps.store.listMembers([job.teamId]),
  ]);
  if (team === undefined) throw forbidden('This member run has ended; its member tools are closed.');
  const member = roster.find((m) => m.conversationId === job.conversationId);
  if (member === undefined) throw forbidden('Only member conversations of the team can use the member tools.');
  return { team, member, roster, job };
}

/** A tool's arguments as an object (absent: empty), or INVALID_INPUT. */
export function argsObject(name: MemberToolName, args: unknown): Readonly<Record<string, unknown>> {
  if (args === null || args === undefined) return {};
  if (typeof args !== 'object' || Array.isArray(args)) {
    throw new DomainError(ErrorCode.INVALID_INPUT, 'Tool arguments must be a JSON object.', { field: 'arguments' });
  }
  const record = args as Record<string, unknown>;
  // One check for every string of the arguments (ids, cursors, queries, text): none may hold
  // what a store cannot keep, so both stores answer INVALID_INPUT alike, never a driver error.
  const unstorable = findUnstorableText(record);
  if (unstorable !== null) {
    throw new DomainError(ErrorCode.INVALID_INPUT, 'Tool arguments must not hold U+0000 or unpaired surrogates.', {
      field: unstorable,
    });
  }
  const allowed = ALLOWED_ARGS.get(name) ?? [];
  const unexpected = Object.keys(record).find((key) => !allowed.includes(key));
  if (unexpected !== undefined) {
    throw new DomainError(ErrorCode.INVALID_INPUT, `${name} does not take "${unexpected}".`, { field: unexpected });
  }
  return record;
}

function readArgs(args: Readonly<Record<string, unknown>>): TeamReadArgs {
  const text = (key: string) => {
    const value = args[key];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string') {
      throw new DomainError(ErrorCode.INVALID_INPUT, `${key} must be a string.`, { field: key });
    }
    return value;
  };
  const limit = args.limit;
  if (limit !== undefined && limit !== null && typeof limit !== 'number') {
    throw new DomainError(ErrorCode.INVALID_INPUT, `limit must be between 1 and ${Limits.pageSize.max}.`, {
      field: 'limit',
      min: 1,
      max: Limits.pageSize.max,
    });
  }
  return {
    memberId: text('member_id'),
    jobId: text('job_id'),
    query: text('query'),
    limit: (limit as number | null | undefined) ?? null,
    cursor: text('cursor'),
  };
}

/**
 * Calls a member tool as the caller bound to `jobId`, with JSON arguments; answers JSON with
 * snake_case keys (see the contract's "Member tools"). Read tools never start a run.
 * @throws DomainError FORBIDDEN (caller or `team_id`), INVALID_INPUT (name or arguments), and
 * each tool's own codes, whose `field` names the tool's own argument (`task_id`, not `taskId`).
 */
export async function invokeMemberTool(
  deps: MemberToolDeps,
  jobId: JobId,
  name: string,
  args: unknown,
): Promise<unknown> {
  try {
    return await dispatch(deps, jobId, name, args);
  } catch (error) {
    // The rules shared with the mutations name GraphQL's input fields; the tool's caller knows
    // only the tool's arguments, so every refusal is renamed here, once, on its way out.
    throw inToolArgumentNames(error, ALLOWED_ARGS.get(name) ?? []);
  }
}

/** The call itself, with the refusals as the use cases raise them (see {@link invokeMemberTool}). */
async function dispatch(deps: MemberToolDeps, jobId: JobId, name: string, args: unknown): Promise<unknown> {
  if (!ALLOWED_ARGS.has(name)) {
    throw new DomainError(ErrorCode.INVALID_INPUT, `There is no member tool "${name}".`, { field: 'name' });
  }
  const tool = name as MemberToolName;
  const input = argsObject(tool, args);
  const caller = await resolveToolCaller(deps, jobId);
  if (input.team_id !== undefined && input.team_id !== null && input.team_id !== caller.team.id) {
    throw forbidden('The member tools of this run reach only its own team.');
  }
  if (isTaskTool(tool)) return invokeTaskTool(deps, caller, tool, input);
  const roster = new Map(caller.roster.map((m) => [m.id, m]));
  // The lead's tools (NOT_LEAD for anyone else) live beside their use cases.
  if (isLifecycleTool(tool)) return invokeLifecycleTool(deps, caller, tool, input);
  switch (tool) {
    case 'send_member':
      // The broadcast prefix marks a broadcast's requests (their receipt is the combined one).
      if (typeof input.request_id === 'string' && input.request_id.startsWith(BROADCAST_KEY_PREFIX)) {
        throw new DomainError(ErrorCode.INVALID_INPUT, `request_id may not start with "${BROADCAST_KEY_PREFIX}".`, {
          field: 'request_id',
        });
      }
      return sendMember(deps, caller, {
        memberId: input.member_id,
        member: input.member,
        text: input.text,
        requestId: input.request_id,
      });
    case 'team_message':
      return teamMessage(deps, caller, input);
    case 'team_broadcast':
      return teamBroadcast(deps, caller, input);
    case 'read_team_context': {
      const records = await deps.store.recentRecords(caller.team.id, Limits.contextMessages);
      return teamContextJson(caller.team, caller.roster, records);
    }
    case 'read_team_history':
      return (await readHistory(deps.store, caller.team, readArgs(input))).json;
    case 'search_team_results':
      return (await readResults(deps.store, caller.team, roster, readArgs(input))).json;
    case 'read_team_result': {
      const jobIdArg = input.job_id;
      if (typeof jobIdArg !== 'string' || jobIdArg.length === 0) {
        throw new DomainError(ErrorCode.INVALID_INPUT, 'job_id must be a job id.', { field: 'job_id' });
      }
      const found = await readResult(deps.store, caller.team, roster, asJobId(jobIdArg));
      if (found === null) throw new DomainError(ErrorCode.NOT_FOUND, 'No such job in this team.', { field: 'job_id' });
      return found.json;
    }
    case 'wait_for_change':
      // The wait pauses a built-in runtime's turn (`planWait` below); a caller outside the server
      // has no turn to pause: the server's edges hold its request instead (`planOutsideWait`), and
      // any other caller is told to read.
      planChangeWait(deps, caller, input);
      throw new DomainError(
        ErrorCode.NOT_AVAILABLE_YET,
        'wait_for_change pauses a built-in runtime turn; outside the server, read the team instead.',
        { field: 'name' },
      );
  }
}

/** The member tools bound to one job, as a runtime receives them. */
export function memberToolsForJob(deps: MemberToolDeps, jobId: JobId): MemberToolPort {
  return {
    invoke: (name, args) => invokeMemberTool(deps, jobId, name, args),
    async planWait(args) {
      const input = argsObject('wait_for_change', args);
      const caller = await resolveToolCaller(deps, jobId);
      if (input.team_id !== undefined && input.team_id !== null && input.team_id !== caller.team.id) {
        throw forbidden('The member tools of this run reach only its own team.');
      }
      return planChangeWait(deps, caller, input);
    },
  };
}
