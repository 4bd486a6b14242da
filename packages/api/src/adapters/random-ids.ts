import { randomFillSync } from 'node:crypto';
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

/** The random bytes of one id: 128 bits. */
export const ID_RANDOM_BYTES = 16;
/** Random bytes drawn at once for the next ids (256 ids' worth). */
const POOL_BYTES = ID_RANDOM_BYTES * 256;

let pool = Buffer.alloc(0);
let used = 0;

/**
 * 16 random bytes as base64url: 128 bits, URL- and log-safe.
 *
 * @remarks Drawn from a pool filled by one `randomFillSync` per 256 ids, as `randomUUID` does
 * for its own: a `randomBytes(16)` per id cost 4.4 µs, the pooled slice 0.1 µs (measured here),
 * and a `sendRequest` mints several. Every byte is used once; the bytes are the same
 * cryptographically strong ones either way.
 */
function token(): string {
  if (used + ID_RANDOM_BYTES > pool.length) {
    // A fresh buffer each time: never a byte handed out twice, even if a fill were to throw.
    pool = randomFillSync(Buffer.allocUnsafe(POOL_BYTES));
    used = 0;
  }
  const id = pool.toString('base64url', used, used + ID_RANDOM_BYTES);
  used += ID_RANDOM_BYTES;
  return id;
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
