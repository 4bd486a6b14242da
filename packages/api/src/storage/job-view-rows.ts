import {
  asConversationId,
  asJobId,
  asMemberId,
  asOwnerId,
  asRunId,
  asTeamId,
  type ChangeWait,
  type InputRequest,
  type JobKind,
  type JobPhase,
  type JobView,
  type PendingResponse,
} from '@agent-teams/core';
import type { Selectable } from 'kysely';
import type { JobsTable } from './database-types.js';
import { readStoredJson } from './stored-json.js';

/**
 * The `jobs` columns a {@link JobView} is read from: every column a job maps from but its frozen
 * input (`input_json`). That column holds the turn's whole team context, up to about 35 KB of
 * JSON, and stays after the job ends; a page of jobs selects these instead of `*`, so a page of
 * 100 finished jobs neither reads nor parses megabytes it never shows (docs/benchmarks.md,
 * `job-pages`).
 */
export const JOB_VIEW_COLUMNS = [
  'id',
  'team_id',
  'owner',
  'kind',
  'phase',
  'seq',
  'member_id',
  'conversation_id',
  'requester_member_id',
  'requester_conversation_id',
  'parent_id',
  'root_id',
  'client_key',
  'text',
  'run_key',
  'run_id',
  'pending_input_json',
  'pending_response_json',
  'wait_json',
  'result_text',
  'result_truncated',
  'error',
  'error_code',
  'created_at',
  'started_at',
  'finished_at',
  'updated_at',
] as const satisfies readonly (keyof JobsTable)[];

/** A `jobs` row as a page selects it ({@link JOB_VIEW_COLUMNS}); a whole row is one too. */
export type JobViewRow = Pick<Selectable<JobsTable>, (typeof JOB_VIEW_COLUMNS)[number]>;

/** A job's JSON column; unreadable text reads as null (see `stored-json.ts`). */
export const jobJson = <T>(id: string, column: string, text: string | null): T | null =>
  readStoredJson<T>({ table: 'jobs', column, id }, text);

/**
 * Maps a `jobs` row to a {@link JobView}. Reads only {@link JOB_VIEW_COLUMNS}: the type of `row`
 * keeps the list and this mapper in step.
 */
export function toJobView(row: JobViewRow): JobView {
  return {
    id: asJobId(row.id),
    teamId: asTeamId(row.team_id),
    owner: asOwnerId(row.owner),
    kind: row.kind as JobKind,
    phase: row.phase as JobPhase,
    seq: Number(row.seq),
    memberId: row.member_id === null ? null : asMemberId(row.member_id),
    conversationId: asConversationId(row.conversation_id),
    requester: {
      memberId: row.requester_member_id === null ? null : asMemberId(row.requester_member_id),
      conversationId: row.requester_conversation_id === null ? null : asConversationId(row.requester_conversation_id),
    },
    parentId: row.parent_id === null ? null : asJobId(row.parent_id),
    rootId: asJobId(row.root_id),
    clientKey: row.client_key,
    text: row.text,
    runKey: row.run_key,
    runId: row.run_id === null ? null : asRunId(row.run_id),
    pendingInput: jobJson<InputRequest>(row.id, 'pending_input_json', row.pending_input_json),
    pendingResponse: jobJson<PendingResponse>(row.id, 'pending_response_json', row.pending_response_json),
    wait: jobJson<ChangeWait>(row.id, 'wait_json', row.wait_json ?? null),
    result:
      row.result_text === null
        ? null
        : {
            text: row.result_text,
            truncated: row.result_truncated === null ? null : Number(row.result_truncated) === 1,
          },
    error: row.error,
    errorCode: row.error_code ?? null,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    updatedAt: row.updated_at,
  };
}
