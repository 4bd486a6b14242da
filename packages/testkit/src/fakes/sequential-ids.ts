import {
  asConversationId,
  asJobId,
  asMemberId,
  asMessageId,
  asRecordId,
  asTaskId,
  asTeamId,
  type ConversationId,
  type IdGenerator,
  IdKind,
  type JobId,
  type MemberId,
  type MessageId,
  type RecordId,
  type TaskId,
  type TeamId,
} from '@agent-teams/core';

/**
 * An {@link IdGenerator} that mints `team_1`, `team_2`, `member_1`, `job_1`, ... with one counter
 * per kind.
 *
 * @remarks The prefix before `_` names the type, as in production ids, because GraphQL
 * `node(id)` dispatches on it; the counter makes ids predictable in assertions.
 */
export class SequentialIds implements IdGenerator {
  readonly #counters = new Map<IdKind, number>();

  teamId(): TeamId {
    return asTeamId(this.#next(IdKind.team));
  }

  memberId(): MemberId {
    return asMemberId(this.#next(IdKind.member));
  }

  jobId(): JobId {
    return asJobId(this.#next(IdKind.job));
  }

  recordId(): RecordId {
    return asRecordId(this.#next(IdKind.record));
  }

  conversationId(): ConversationId {
    return asConversationId(this.#next(IdKind.conversation));
  }

  messageId(): MessageId {
    return asMessageId(this.#next(IdKind.message));
  }

  taskId(): TaskId {
    return asTaskId(this.#next(IdKind.task));
  }

  /** How many ids of a kind were minted so far. */
  count(kind: IdKind): number {
    return this.#counters.get(kind) ?? 0;
  }

  #next(kind: IdKind): string {
    const value = this.count(kind) + 1;
    this.#counters.set(kind, value);
    return `${kind}_${value}`;
  }
}
