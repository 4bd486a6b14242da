import { randomBytes } from 'node:crypto';
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

/** 16 random bytes as base64url: 128 bits, URL- and log-safe. */
function token(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * Mints random ids prefixed with their type (`team_…`, `job_…`), so a bare id says what it is
 * and GraphQL `node(id)` can dispatch on the prefix without a lookup.
 */
export function createRandomIds(): IdGenerator {
  return {
    teamId: () => `team_${token()}` as TeamId,
    memberId: () => `member_${token()}` as MemberId,
    jobId: () => `job_${token()}` as JobId,
    recordId: () => `record_${token()}` as RecordId,
    conversationId: () => `conversation_${token()}` as ConversationId,
    messageId: () => `message_${token()}` as MessageId,
    taskId: () => `task_${token()}` as TaskId,
  };
}
