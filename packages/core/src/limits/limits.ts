/**
 * Every limit of the public contract (`shared/contract/README.md`, "Limits"). Characters are
 * Unicode code points; bytes are UTF-8. The widget checks the same numbers before sending.
 */
export const Limits = {
  teamName: { maxChars: 80, maxBytes: 160 },
  goal: { maxChars: 2_000, maxBytes: 4_000 },
  memberName: { maxChars: 80, maxBytes: 160 },
  /** Task text of a request and a clarification answer. */
  taskText: { maxChars: 4_000, maxBytes: 8_000 },
  clarificationAnswer: { maxChars: 4_000, maxBytes: 8_000 },
  /** JSON text of an interrupt response. */
  interruptResponseBytes: 8_000,
  /** Nesting of an interrupt response (arrays and objects inside each other). */
  interruptResponseDepth: 64,
  /** A stored clarification question. */
  questionBytes: 8_000,
  clientRequestId: { maxChars: 128, maxBytes: 512 },
  minMembers: 2,
  maxMembers: 8,
  teamsPerOwner: 20,
  requestsPerTeam: 100,
  receiptsPerTeam: 100,
  requestsPerChain: 12,
  activeJobs: 8,
  recordRetained: 100,
  contextMessages: 8,
  contextBytes: 24_000,
  answerBytes: 6_000,
  toolResponseBytes: 24_000,
  excerptBytes: 500,
  historyTextBytes: 6_000,
  pageSize: { min: 1, max: 20, default: 8 },
  /** The literal `query` filter of the history and result reads. */
  historyQueryChars: 200,
  connectionPage: { max: 100, default: 20 },
  mentionLabelUtf16: 120,
  mentionResults: 16,
  mentionQueryChars: 200,
  /** The search query of `agents(query:)`. */
  catalogQueryChars: 200,
  /** Deadline of one agent turn unless the agent sets `timeoutMs`. */
  defaultTurnTimeoutMs: 180_000,
  /** Limit of one scheduler advancement step (one runtime call). */
  advancementStepMs: 10_000,
  /** A member's role (`MemberInput.role`, `team_spawn`'s `role`). */
  memberRole: { maxChars: 200, maxBytes: 400 },
  /** At most one lead per team (`LEAD_COUNT`). */
  leadsPerTeam: 1,
  /** The text of a team message (`team_message`, `sendMessage`). */
  messageText: { maxChars: 4_000, maxBytes: 8_000 },
  /** Undelivered team messages one recipient may hold (`MAILBOX_FULL`). */
  mailboxUndelivered: 64,
  /** `wait_for_change`'s `timeout_ms`. */
  waitTimeoutMs: { min: 10_000, max: 3_600_000 },
  /** Tasks of one team, cancelled and done ones included (`TASK_LIMIT`). */
  tasksPerTeam: 256,
  dependenciesPerTask: 32,
  writeScopesPerTask: 20,
  /**
   * One write scope. The contract bounds characters only; 800 bytes is the most 200 code points
   * can take in UTF-8, so only the character rule ever refuses (the same for the task title).
   */
  writeScope: { maxChars: 200, maxBytes: 800 },
  taskTitle: { maxChars: 200, maxBytes: 800 },
  taskDetails: { maxChars: 4_000, maxBytes: 8_000 },
  /** A task's result. */
  taskResultBytes: 6_000,
} as const;

/** A length rule on a text field. */
export interface TextLimit {
  readonly maxChars: number;
  readonly maxBytes: number;
}

/** Appended to an answer cut at {@link Limits.answerBytes}. */
export const TRUNCATION_NOTICE = '\n[Truncated; open the member conversation for the full answer.]';
