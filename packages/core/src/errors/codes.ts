/**
 * The stable error codes clients branch on (`extensions.code` in GraphQL, `error.code` in member
 * tool answers). Add-only: a snapshot test fails when a code is removed or renamed.
 */
export const ErrorCode = {
  /** No or unknown credentials. */
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  /** The team/job/member/agent does not exist or belongs to another owner. */
  NOT_FOUND: 'NOT_FOUND',
  /** A field breaks a rule; details name the field and, for length rules, both limits. */
  INVALID_INPUT: 'INVALID_INPUT',
  /** Fewer than 2 or more than 8 members. */
  MEMBER_COUNT: 'MEMBER_COUNT',
  /** Two member names are equal after trimming. */
  DUPLICATE_MEMBER_NAME: 'DUPLICATE_MEMBER_NAME',
  /** The owner already has the maximum number of teams. */
  TEAM_LIMIT: 'TEAM_LIMIT',
  /** A send would take the team past 100 requests, or its handoff chain past 12. */
  REQUEST_LIMIT: 'REQUEST_LIMIT',
  /** An idempotency key was reused with different content. */
  IDEMPOTENCY_CONFLICT: 'IDEMPOTENCY_CONFLICT',
  /** A member asked itself. */
  SELF_REQUEST: 'SELF_REQUEST',
  /** `respond` on a job that is not waiting for input. */
  NOT_WAITING_INPUT: 'NOT_WAITING_INPUT',
  /** The question the answer was for is no longer the pending one. */
  INPUT_CHANGED: 'INPUT_CHANGED',
  /** The response is missing, too large, of the wrong type, or holds an unpaired surrogate. */
  INVALID_RESPONSE: 'INVALID_RESPONSE',
  /** Delete refused while any job of the team is unfinished. */
  PENDING_WORK: 'PENDING_WORK',
  /** A cursor reused with other filters. */
  CURSOR_MISMATCH: 'CURSOR_MISMATCH',
  /** A member-run token used outside its team, or a tool not allowed to that caller. */
  FORBIDDEN: 'FORBIDDEN',
  /** The agent catalog could not be read (never answered with invented agents). */
  CATALOG_UNAVAILABLE: 'CATALOG_UNAVAILABLE',
  /** A capability whose issue has not landed yet (e.g. a scripted directive); says which. */
  NOT_AVAILABLE_YET: 'NOT_AVAILABLE_YET',
  /** A state-machine command that the job's current state does not accept. */
  INVALID_TRANSITION: 'INVALID_TRANSITION',
  /** A lease or fencing token no longer matches: another server owns the job now. */
  STALE_LEASE: 'STALE_LEASE',
  /** A `teamEvents` resume from a seq older than the retained log (or past its head): refetch, then subscribe without afterSeq. */
  RESUME_EXPIRED: 'RESUME_EXPIRED',
  /** An operation breaks a request limit (tokens, depth, aliases, cost, directives); details name the limit. */
  QUERY_LIMIT: 'QUERY_LIMIT',
  /** Too many subscriptions on one socket (20) or for one owner across sockets. */
  SUBSCRIPTION_LIMIT: 'SUBSCRIPTION_LIMIT',
  /** A handoff would repeat an ancestor's (from, to, text) in the same chain: a ping-pong loop. */
  HANDOFF_LOOP: 'HANDOFF_LOOP',
  /** The owner sent operations faster than its rate limit; details carry `retryAfterMs`. Answers and cancels are never limited. */
  RATE_LIMITED: 'RATE_LIMITED',
  /** More than one member of a team marked as its lead; details name the second lead's field. */
  LEAD_COUNT: 'LEAD_COUNT',
  /** A lead-only tool called by a member who is not the team's lead. */
  NOT_LEAD: 'NOT_LEAD',
  /** The member was retired: it can no longer be asked, messaged or given tasks. */
  MEMBER_RETIRED: 'MEMBER_RETIRED',
  /** The team is closed: it accepts no new requests, messages or tasks. */
  TEAM_CLOSED: 'TEAM_CLOSED',
  /** The recipient already holds 64 undelivered team messages. */
  MAILBOX_FULL: 'MAILBOX_FULL',
  /** A task write named another revision than the current one; details carry `currentRevision`. */
  TASK_STALE_REVISION: 'TASK_STALE_REVISION',
  /** A claim on a task whose dependencies are not all done; details name them. */
  TASK_BLOCKED: 'TASK_BLOCKED',
  /** A claim on a task another member owns. */
  TASK_CLAIMED: 'TASK_CLAIMED',
  /** Dependencies that would make the team's task graph cyclic. */
  TASK_CYCLE: 'TASK_CYCLE',
  /** The team already holds 256 tasks. */
  TASK_LIMIT: 'TASK_LIMIT',
} as const;

/** One of the stable error codes. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];
