/** What the widget reads of jobs and messages (the shapes of `JOB_FIELDS` and `MESSAGE_FIELDS`). */

/** Tokens and cost of model calls (`Usage` in the schema). */
export interface UsageView {
  inputTokens: number;
  /** Of `inputTokens`, those the provider read from its prompt cache. */
  cachedInputTokens: number;
  outputTokens: number;
  cost: number;
  calls: number;
}

/** The question a job waits on; `requestId` is sent back with the answer. */
export interface InputView {
  kind: 'CLARIFICATION' | 'INTERRUPT';
  requestId: string;
  question: string | null;
  payload: unknown;
}

/** A job as the widget reads it (see `JOB_FIELDS`). */
export interface JobView {
  id: string;
  /** REQUEST and RECEIPT are shown; MESSAGE and BROADCAST_RECEIPT turns only count for WAITING_CHANGE. */
  kind: string;
  status: string;
  text: string;
  error: string | null;
  /** Why it failed or was cancelled when the server knows (`BUDGET_EXHAUSTED`, …). */
  errorCode?: string | null;
  createdAt: string;
  conversationId: string | null;
  member: { id: string; name: string; conversationId: string } | null;
  requester: { member: { id: string; name: string } | null };
  parent: { id: string; text: string } | null;
  input: InputView | null;
  usage: UsageView;
  /** `text` is null once the result left the retained record. */
  result: { text: string | null };
  /** From the activity query: only what the card shows of the receipt. */
  receipt?: ReceiptView | null;
}

/** The receipt delivering a request's result back to the member who asked (a turn of that member). */
export type ReceiptView = Pick<JobView, 'id' | 'status' | 'error' | 'errorCode' | 'input' | 'usage'>;

/** A team message (`TeamMessage`): from a member, or from a person when `from` is null. */
export interface MessageView {
  id: string;
  from: { name: string } | null;
  to: { name: string }[];
  text: string;
  delivery: 'QUIET' | 'FOLLOW_UP';
  createdAt: string;
}
