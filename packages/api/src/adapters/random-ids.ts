import type {
  ConversationId,
  IdGenerator,
  JobId,
  MemberId,
  MessageId,
  RecordId,
  TaskId,
  TeamId,
} from '@agent-teams/core';
import { orderedIdBody } from '../storage/ordered-id.js';

export { ID_RANDOM_BYTES, ID_TIME_CHARS, idTime, orderedIdBody } from '../storage/ordered-id.js';

/**
 * Mints ids prefixed with their type (`team_…`, `job_…`), so a bare id says what it is and
 * GraphQL `node(id)` can dispatch on the prefix without a lookup; the body is
 * {@link orderedIdBody}: time first, then 96 random bits.
 */
export function createRandomIds(): IdGenerator {
  return {
    teamId: () => `team_${orderedIdBody()}` as TeamId,
    memberId: () => `member_${orderedIdBody()}` as MemberId,
    jobId: () => `job_${orderedIdBody()}` as JobId,
    recordId: () => `record_${orderedIdBody()}` as RecordId,
    conversationId: () => `conversation_${orderedIdBody()}` as ConversationId,
    messageId: () => `message_${orderedIdBody()}` as MessageId,
    taskId: () => `task_${orderedIdBody()}` as TaskId,
  };
}
