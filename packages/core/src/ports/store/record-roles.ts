import type { ConversationId, JobId, MemberId, RecordId, TeamId } from '../../model/ids.js';
import type { Job } from '../../model/job.js';
import type { RecordMessage } from '../../model/record.js';
import type { UsageEntry, UsageScope, UsageTotals } from '../../model/usage.js';
import type { TeamEvent } from '../event-sink.js';
import type { NewestFirstPage, NewestFirstPageRequest, SeqPage, SeqPageRequest } from './pages.js';

/**
 * Filters of the member read tools (`read_team_history`, `search_team_results`) and of
 * `Team.history`/`Team.results`, applied by the store before paging.
 */
export interface TeamReadFilter {
  /** Records: about or sent by this member. Results: executed or asked by this member. */
  readonly memberId: MemberId | null;
  /** Records: about this job. Results: this request, or a request whose parent or root it is. */
  readonly jobId: JobId | null;
  /**
   * Literal substring, already folded with the core's `foldSearchText`; the store compares it
   * with the folded record text (records) or the folded task text and stored answer (results).
   */
  readonly query: string | null;
}

/** Store role: the reads of a team's shared record and of its finished results. */
export interface RecordReads {
  /** The newest `limit` record messages of a team, oldest first. */
  recentRecords(teamId: TeamId, limit: number): Promise<readonly RecordMessage[]>;
  /** Record messages by id (batch loading). */
  findRecords(recordIds: readonly RecordId[]): Promise<readonly RecordMessage[]>;
  /** A page of a team's retained record messages, newest first, filtered (see {@link TeamReadFilter}). */
  pageRecords(
    teamId: TeamId,
    filter: TeamReadFilter,
    page: NewestFirstPageRequest,
  ): Promise<NewestFirstPage<RecordMessage>>;
  /**
   * A page of a team's finished REQUEST jobs (completed, failed, cancelled; receipts never),
   * newest first by creation, filtered (see {@link TeamReadFilter}).
   */
  searchResults(teamId: TeamId, filter: TeamReadFilter, page: NewestFirstPageRequest): Promise<NewestFirstPage<Job>>;
}

/** Store role: the per-team event log (replay of `teamEvents`). */
export interface EventLog {
  /** Retained events of a team with seq > afterSeq, in seq order, at most `limit`. */
  readEvents(teamId: TeamId, afterSeq: number, limit: number): Promise<readonly TeamEvent[]>;
}

/** Store role: the usage of model calls. */
export interface UsageLedger {
  /**
   * Records the usage of one model call; idempotent by `entry.id` (a second record of the same
   * id changes nothing). Not a visible team change: no revision, no event.
   */
  recordUsage(entry: UsageEntry, now: string): Promise<void>;
  /**
   * Sums recorded usage per scope (a `chain` scope sums every job whose root is that id). The
   * answer has an entry for every scope asked, keyed by `usageScopeKey`, zero when none.
   */
  usageTotals(scopes: readonly UsageScope[]): Promise<ReadonlyMap<string, UsageTotals>>;
}

/** A message of a member's conversation (written by runtimes, read by `Member.conversation`). */
export interface ConversationMessage {
  readonly id: string;
  readonly conversationId: ConversationId;
  readonly seq: number;
  readonly role: 'USER' | 'ASSISTANT' | 'TOOL';
  readonly text: string | null;
  readonly toolName: string | null;
  readonly jobId: JobId | null;
  readonly createdAt: string;
}

/** A conversation message to append (the store numbers and stamps it). */
export type NewConversationMessage = Omit<ConversationMessage, 'id' | 'seq' | 'conversationId' | 'createdAt'>;

/** Store role: the members' conversations. */
export interface ConversationLog {
  /** Appends messages to a member conversation (runtimes call this). */
  appendConversation(
    conversationId: ConversationId,
    messages: readonly NewConversationMessage[],
    now: string,
  ): Promise<void>;
  /** A conversation's messages, oldest first. */
  listConversation(conversationId: ConversationId, page: SeqPageRequest): Promise<SeqPage<ConversationMessage>>;
}
