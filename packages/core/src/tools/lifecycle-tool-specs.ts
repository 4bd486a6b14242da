import { Limits } from '../limits/limits.js';
import { spec } from './tool-spec.js';

const memberArg = { type: 'string', description: 'Name or id of the member (from read_team_context).' } as const;

/**
 * The member tools that change the team itself (`team_spawn`, `team_retire`, `team_close`,
 * `team_interrupt`, all lead only) and `wait_for_change` (any member), in the order agents see them.
 *
 * @remarks Part of the one registry (`MEMBER_TOOL_SPECS`); kept in their own file so the tools of
 * each teamwork feature stay apart. {@link LEAD_ONLY_TOOLS} names the lead's.
 */
export const LIFECYCLE_TOOL_SPECS = [
  spec(
    'team_spawn',
    'Lead only. Add a new member to the team, running a catalog agent. context "fresh" (default) starts ' +
      'an empty conversation; "fork" starts it with your completed turns that fit the context budget. ' +
      `Names are taken for good (also after retirement); at most ${Limits.maxMembers} active members.`,
    {
      name: { type: 'string', description: `Unique name, at most ${Limits.memberName.maxChars} characters.` },
      agent: { type: 'string', description: 'Catalog id of the agent the member runs.' },
      role: {
        type: 'string',
        description: `The member's role, one line of at most ${Limits.memberRole.maxChars} characters.`,
      },
      context: { type: 'string', description: '"fresh" (default) or "fork".' },
      request_id: {
        type: 'string',
        minLength: 1,
        maxLength: Limits.clientRequestId.maxChars,
        description: 'A stable id for this spawn, reused on retries (the same id never spawns twice).',
      },
    },
    ['name', 'agent', 'request_id'],
  ),
  spec(
    'team_retire',
    'Lead only. Retire a member: its queued and running work is cancelled and it can no longer be asked; its conversation stays readable.',
    { member: memberArg },
    ['member'],
  ),
  spec(
    'team_close',
    'Lead only. Close the team: it accepts no new requests, messages or tasks and its queued work is cancelled. Cannot be undone.',
    { reason: { type: 'string', description: 'Why, for the record (optional).' } },
  ),
  spec(
    'team_interrupt',
    "Lead only. End a member's current turn (its job ends CANCELLED with your reason); its mailbox and tasks stay.",
    {
      member: memberArg,
      reason: { type: 'string', description: "Why, shown as the cancelled job's error." },
      request_id: {
        type: 'string',
        minLength: 1,
        maxLength: Limits.clientRequestId.maxChars,
        description:
          'Optional: a stable id for this interrupt, reused on retries. A retry answers the job the first ' +
          'call ended and never ends a later turn.',
      },
    },
    ['member', 'reason'],
  ),
  spec(
    'wait_for_change',
    'Pause your turn until something in the team changes (a message, a task, a result, a member status) ' +
      'or timeout_ms passes, instead of polling. Holds no slot while waiting. The result says whether it ' +
      'timed out and lists the changes; read the current state afterwards.',
    {
      timeout_ms: {
        type: 'integer',
        minimum: Limits.waitTimeoutMs.min,
        maximum: Limits.waitTimeoutMs.max,
        description: `How long to wait at most, ${Limits.waitTimeoutMs.min} to ${Limits.waitTimeoutMs.max} ms.`,
      },
      after_seq: {
        type: 'integer',
        minimum: 0,
        description: 'Wake for changes after this team event seq (default: the seq at the call).',
      },
    },
    ['timeout_ms'],
  ),
] as const;

/** The tools only the team's lead may call (`NOT_LEAD` for anyone else). */
export const LEAD_ONLY_TOOLS: ReadonlySet<string> = new Set([
  'team_spawn',
  'team_retire',
  'team_close',
  'team_interrupt',
]);
