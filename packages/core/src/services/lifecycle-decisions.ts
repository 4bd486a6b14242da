import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { JobErrorCode } from '../jobs/job-error-code.js';
import { type TransitionContext, type TransitionOutcome, transition } from '../jobs/job-machine.js';
import { isTerminal, type Job, JobPhase } from '../model/job.js';
import type { Member } from '../model/team.js';
import type { ConversationMessage, NewConversationMessage } from '../ports/team-store.js';
import { utf8ByteLength } from '../text/text-measure.js';

/** How a spawned member's conversation starts. */
export const SpawnContext = { FRESH: 'fresh', FORK: 'fork' } as const;
export type SpawnContext = (typeof SpawnContext)[keyof typeof SpawnContext];

/** Most member rows a team ever holds, retired ones included: names are never reused, so rows only grow. */
export const MEMBERS_EVER_PER_TEAM = 64;

/** Who ended the work: the lead through its tools, or the owner (a person) through GraphQL. */
export type LifecycleActor = 'lead' | 'person';

/**
 * The cancel step retire, close and interrupt apply to each unfinished job: CANCEL (with the
 * interrupt's reason, if any, and who asked as its `errorCode`); a finished or already cancelling
 * job is left as it is.
 */
export function cancelStep(
  ctx: TransitionContext,
  reason?: string,
  by: LifecycleActor = 'person',
): (job: Job) => TransitionOutcome {
  const code = by === 'lead' ? JobErrorCode.CANCELLED_BY_LEAD : JobErrorCode.CANCELLED_BY_PERSON;
  return (job) =>
    isTerminal(job.phase) || job.phase === JobPhase.CANCELLING
      ? { ok: true, job, effects: [] }
      : transition(job, reason === undefined ? { type: 'CANCEL', code } : { type: 'CANCEL', reason, code }, ctx);
}

/**
 * Checks, inside the store's transaction, that `name` can join `roster` (every member ever,
 * retired ones included): names are taken for good, and the active members and all rows stay
 * within their limits.
 * @throws DomainError DUPLICATE_MEMBER_NAME or MEMBER_COUNT.
 */
export function checkSpawnRoom(
  roster: readonly Member[],
  name: string,
  limits: { readonly maxActive: number; readonly maxEver: number },
): void {
  if (roster.some((m) => m.name === name)) {
    throw new DomainError(ErrorCode.DUPLICATE_MEMBER_NAME, 'That name is taken in this team.', { field: 'name' });
  }
  const active = roster.filter((m) => m.retiredAt === null).length;
  if (active >= limits.maxActive || roster.length >= limits.maxEver) {
    throw new DomainError(ErrorCode.MEMBER_COUNT, `A team holds at most ${limits.maxActive} active members.`, {
      max: limits.maxActive,
      actual: active,
    });
  }
}

/** The refusal of work for a retired member. */
export function memberRetired(field: string): DomainError {
  return new DomainError(ErrorCode.MEMBER_RETIRED, 'This member was retired; it can no longer be asked.', { field });
}

/** `context` of a spawn: absent or null means fresh. @throws DomainError INVALID_INPUT. */
export function parseSpawnContext(field: string, value: unknown): SpawnContext {
  if (value === undefined || value === null || value === SpawnContext.FRESH) return SpawnContext.FRESH;
  if (value === SpawnContext.FORK) return SpawnContext.FORK;
  throw new DomainError(ErrorCode.INVALID_INPUT, `${field} must be "fresh" or "fork".`, { field });
}

/**
 * The member named by `ref` (its id, or its exact trimmed name).
 * @throws DomainError INVALID_INPUT (not a string) or NOT_FOUND.
 */
export function findMember(roster: readonly Member[], ref: unknown, field: string): Member {
  if (typeof ref !== 'string' || ref.trim() === '') {
    throw new DomainError(ErrorCode.INVALID_INPUT, `${field} must name a member.`, { field });
  }
  const member = roster.find((m) => m.id === ref) ?? roster.find((m) => m.name === ref.trim());
  if (member === undefined) throw new DomainError(ErrorCode.NOT_FOUND, 'No such member in this team.', { field });
  return member;
}

/**
 * The first messages of a forked member: the lead's completed turns (the user text and the final
 * answer of each COMPLETED job, tool traffic left out), newest turns first until `budgetBytes` of
 * text, returned oldest first. A turn is taken whole or not at all, so the fork never starts
 * mid-turn.
 */
export function forkSeed(
  messages: readonly ConversationMessage[],
  completed: ReadonlySet<string>,
  budgetBytes: number,
): NewConversationMessage[] {
  const turns = new Map<string, ConversationMessage[]>();
  for (const message of messages) {
    if (message.jobId === null || !completed.has(message.jobId)) continue;
    if (message.role === 'TOOL' || message.toolName !== null || message.text === null) continue;
    const turn = turns.get(message.jobId) ?? [];
    turn.push(message);
    turns.set(message.jobId, turn);
  }
  const picked: ConversationMessage[][] = [];
  let used = 0;
  for (const turn of [...turns.values()].reverse()) {
    const bytes = turn.reduce((sum, m) => sum + utf8ByteLength(m.text ?? ''), 0);
    if (used + bytes > budgetBytes) break;
    used += bytes;
    picked.unshift(turn);
  }
  return picked.flat().map((m) => ({ role: m.role, text: m.text, toolName: null, jobId: null }));
}
