import type { RecordedToolRequest, TeamId, ToolRequest } from '@agent-teams/core';
import type { WriteScope } from './write-transaction.js';

/**
 * The keys of member tool calls (`tool_requests`, migration 0020), read and written inside the
 * transaction of the call's effect, with the team locked: the check, the effect and the record
 * commit together, so a call run again after that commit (the `openai` runtime's replay after a
 * crash) always finds its record, and two calls under one key never both act.
 */

/** What `key` recorded in the team, or null when no call under it succeeded yet. */
export async function recordedToolRequest(
  scope: WriteScope,
  teamId: TeamId,
  key: string,
): Promise<RecordedToolRequest | null> {
  const row = await scope.trx
    .selectFrom('tool_requests')
    .select(['fingerprint', 'answer_id'])
    .where('team_id', '=', teamId)
    .where('request_key', '=', key)
    .executeTakeFirst();
  return row === undefined ? null : { fingerprint: row.fingerprint, answerId: row.answer_id };
}

/** Records a call that succeeded, with the id it answered (see {@link recordedToolRequest}). */
export async function recordToolRequest(
  scope: WriteScope,
  teamId: TeamId,
  request: ToolRequest,
  answerId: string | null,
): Promise<void> {
  await scope.trx
    .insertInto('tool_requests')
    .values({
      team_id: teamId,
      request_key: request.key,
      fingerprint: request.fingerprint,
      answer_id: answerId,
      created_at: scope.now,
    })
    .execute();
}
