import {
  asAgentId,
  asConversationId,
  asJobId,
  asMemberId,
  asMessageId,
  asOwnerId,
  asRecordId,
  asTaskId,
  asTeamId,
  type ChangeWait,
  type ConversationMessage,
  foldSearchText,
  type InputRequest,
  isTerminal,
  type Job,
  type Member,
  type PendingResponse,
  type RecordKind,
  type RecordMessage,
  type Team,
  type TeamEvent,
  type TeamEventKind,
  type TeamStatus,
} from '@agent-teams/core';
import type { Insertable, Selectable, Updateable } from 'kysely';
import type {
  ConversationMessagesTable,
  JobsTable,
  MembersTable,
  RecordMessagesTable,
  TeamEventsTable,
  TeamsTable,
} from './database-types.js';
import { keepFrozenInput, readInput } from './frozen-inputs.js';
import { toJobView } from './job-view-rows.js';

// Rows never leave the storage folder: every read goes through one of these mappers.

/** Text this process just serialized, parsed back (a job's own copy of what it stored). */
const reparsed = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));
const toJson = (value: unknown): string | null =>
  value === null || value === undefined ? null : JSON.stringify(value);

/** Maps a `teams` row to a {@link Team}. */
export function toTeam(row: Selectable<TeamsTable>): Team & { readonly seq: number } {
  return {
    id: asTeamId(row.id),
    owner: asOwnerId(row.owner),
    clientRequestId: row.client_request_id,
    name: row.name,
    goal: row.goal,
    status: row.status as TeamStatus,
    revision: Number(row.revision),
    lastEventSeq: Number(row.last_event_seq),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    seq: Number(row.seq),
  };
}

/** Strips the storage-only `seq` from a team (for methods that return a plain {@link Team}). */
export function withoutSeq({ seq: _seq, ...team }: Team & { readonly seq: number }): Team {
  return team;
}

/** Maps a `members` row to a {@link Member}. */
export function toMember(row: Selectable<MembersTable>): Member {
  return {
    id: asMemberId(row.id),
    teamId: asTeamId(row.team_id),
    position: Number(row.position),
    name: row.name,
    agentId: asAgentId(row.agent_id),
    conversationId: asConversationId(row.conversation_id),
    role: row.role,
    isLead: Number(row.is_lead) === 1,
    retiredAt: row.retired_at,
  };
}

/**
 * Maps a `jobs` row to a {@link Job}: its {@link JobView} with the frozen input (kept or parsed:
 * `frozen-inputs.ts`).
 */
export function toJob(row: Selectable<JobsTable>): Job {
  return Object.assign(toJobView(row), { input: readInput(row.id, row.input_json) });
}

/** The columns a state-machine step may change, from the next job. */
export function jobStateColumns(job: Omit<Job, 'seq'>, now: string) {
  return {
    phase: job.phase,
    unfinished: isTerminal(job.phase) ? 0 : 1,
    input_json: toJson(job.input),
    run_key: job.runKey,
    run_id: job.runId,
    pending_input_json: toJson(job.pendingInput),
    pending_response_json: toJson(job.pendingResponse),
    wait_json: toJson(job.wait ?? null),
    wait_after_seq: job.wait?.afterSeq ?? null,
    wait_deadline: job.wait?.deadline ?? null,
    result_text: job.result?.text ?? null,
    result_truncated: job.result === null || job.result.truncated === null ? null : job.result.truncated ? 1 : 0,
    result_folded: job.result === null ? null : foldSearchText(job.result.text),
    error: job.error,
    error_code: job.errorCode,
    started_at: job.startedAt,
    finished_at: job.finishedAt,
    updated_at: now,
  } satisfies Partial<Insertable<JobsTable>>;
}

/** What one state-machine step writes to a `jobs` row, and the job as the row then reads. */
export interface JobStateUpdate {
  /** The state columns whose value changes, and `updated_at`. */
  readonly columns: Updateable<JobsTable>;
  /** `current` with the changed fields as {@link toJob} would read them back. */
  readonly job: Job;
}

/**
 * The state columns that differ between `current` (as stored, read in this transaction) and
 * `next`, and the job as stored after the update, without reading it back.
 *
 * @remarks Why only the changed columns: SQLite rewrites every index on a column named in `SET`,
 * and the jobs indexes are on `phase` and `unfinished`, which most steps keep. (`updated_at`, set
 * by every step, is in `jobs_finished_conversation_idx`, whose entries only finished jobs have:
 * only the step that finishes a job writes one.) Why no read back:
 * `RETURNING` cost more than the update itself (measured 40 µs of 90, docs/benchmarks.md). Fields
 * are compared by identity: a step that keeps a field keeps its object.
 */
export function jobStateUpdate(current: Job, next: Job, now: string): JobStateUpdate {
  const columns: Updateable<JobsTable> = { updated_at: now };
  const job: { -readonly [K in keyof Job]: Job[K] } = { ...current, updatedAt: now };
  if (next.phase !== current.phase) {
    columns.phase = next.phase;
    columns.unfinished = isTerminal(next.phase) ? 0 : 1;
    job.phase = next.phase;
  }
  if (next.input !== current.input) {
    columns.input_json = toJson(next.input);
    // Its own reading: a frozen input is plain JSON data (`buildTurnInput`; the core's property
    // test holds it to that), and parsing its text again cost about 40 µs for a full team context.
    job.input = next.input ?? null;
    if (next.input != null && columns.input_json !== null) keepFrozenInput(current.id, columns.input_json, next.input);
  }
  if (next.pendingInput !== current.pendingInput) {
    columns.pending_input_json = toJson(next.pendingInput);
    job.pendingInput = reparsed<InputRequest>(columns.pending_input_json);
  }
  if (next.pendingResponse !== current.pendingResponse) {
    columns.pending_response_json = toJson(next.pendingResponse);
    job.pendingResponse = reparsed<PendingResponse>(columns.pending_response_json);
  }
  if ((next.wait ?? null) !== (current.wait ?? null)) {
    columns.wait_json = toJson(next.wait ?? null);
    columns.wait_after_seq = next.wait?.afterSeq ?? null;
    columns.wait_deadline = next.wait?.deadline ?? null;
    job.wait = reparsed<ChangeWait>(columns.wait_json);
  }
  if (next.result !== current.result) {
    const { result } = next;
    const truncated = result === null ? null : (result.truncated ?? null);
    columns.result_text = result?.text ?? null;
    columns.result_truncated = truncated === null ? null : truncated ? 1 : 0;
    columns.result_folded = result === null ? null : foldSearchText(result.text);
    job.result = result === null ? null : { text: result.text, truncated };
  }
  if (next.runKey !== current.runKey) job.runKey = columns.run_key = next.runKey;
  if (next.runId !== current.runId) job.runId = columns.run_id = next.runId;
  if (next.error !== current.error) job.error = columns.error = next.error;
  if (next.errorCode !== current.errorCode) job.errorCode = columns.error_code = next.errorCode;
  if (next.startedAt !== current.startedAt) job.startedAt = columns.started_at = next.startedAt;
  if (next.finishedAt !== current.finishedAt) job.finishedAt = columns.finished_at = next.finishedAt;
  return { columns, job };
}

/** A full `jobs` row for an insert (seq is assigned by the database). */
export function jobInsertRow(job: Omit<Job, 'seq'>, now: string): Insertable<JobsTable> {
  return {
    id: job.id,
    team_id: job.teamId,
    owner: job.owner,
    kind: job.kind,
    member_id: job.memberId,
    conversation_id: job.conversationId,
    requester_member_id: job.requester.memberId,
    requester_conversation_id: job.requester.conversationId,
    requester_key: job.requester.conversationId ?? '',
    parent_id: job.parentId,
    root_id: job.rootId,
    client_key: job.clientKey,
    text: job.text,
    text_folded: foldSearchText(job.text),
    created_at: job.createdAt,
    // Last, never first (see `UNADMITTED` in the core): the names do not overlap.
    ...jobStateColumns(job, now),
  };
}

/** Maps a `record_messages` row to a {@link RecordMessage}. */
export function toRecord(row: Selectable<RecordMessagesTable>): RecordMessage {
  return {
    id: asRecordId(row.id),
    teamId: asTeamId(row.team_id),
    seq: Number(row.seq),
    kind: row.kind as RecordKind,
    jobId: row.job_id === null ? null : asJobId(row.job_id),
    memberId: row.member_id === null ? null : asMemberId(row.member_id),
    fromMemberId: row.from_member_id === null ? null : asMemberId(row.from_member_id),
    text: row.text,
    truncated: Number(row.truncated) === 1,
    createdAt: row.created_at,
  };
}

/** Maps a `team_events` row (joined with its team's owner) to a {@link TeamEvent}. */
export function toEvent(row: Selectable<TeamEventsTable> & { readonly owner: string }): TeamEvent {
  return {
    teamId: asTeamId(row.team_id),
    owner: asOwnerId(row.owner),
    seq: Number(row.seq),
    kind: row.kind as TeamEventKind,
    jobId: row.job_id === null ? null : asJobId(row.job_id),
    recordId: row.record_id === null ? null : asRecordId(row.record_id),
    memberId: row.member_id === null ? null : asMemberId(row.member_id),
    // Only message events name a message, so every other event keeps its old shape.
    ...(row.message_id == null ? {} : { messageId: asMessageId(row.message_id) }),
    // Only task events carry these: other events stay exactly as they were before migration 0009.
    ...(row.task_id === null ? {} : { taskId: asTaskId(row.task_id) }),
    ...(row.reason === null ? {} : { reason: row.reason }),
    createdAt: row.created_at,
  };
}

/** Maps a `conversation_messages` row to a {@link ConversationMessage}. */
export function toConversationMessage(row: Selectable<ConversationMessagesTable>): ConversationMessage {
  return {
    id: row.id,
    conversationId: asConversationId(row.conversation_id),
    seq: Number(row.seq),
    role: row.role as ConversationMessage['role'],
    text: row.text,
    toolName: row.tool_name,
    jobId: row.job_id === null ? null : asJobId(row.job_id),
    createdAt: row.created_at,
  };
}
