import { Limits } from '../limits/limits.js';
import type { MemberId } from '../model/ids.js';
import { isTerminal, type Job, JobPhase, type JobStatus, type JobView, statusOf } from '../model/job.js';
import type { RecordMessage } from '../model/record.js';
import type { Member } from '../model/team.js';
import { truncateUtf8 } from '../text/text-measure.js';

/** `Job.result` as readers see it: available only when the job finished with a retained answer. */
export interface JobResultView {
  readonly available: boolean;
  readonly text: string | null;
  /** True when the text was cut; null when that is unknown. */
  readonly truncated: boolean | null;
}

/** A page of the shared record (`Team.history`, `read_team_history`). */
export interface HistoryPageView {
  /** Newest first; a record whose text had to be cut to fit the budget says `truncated`. */
  readonly records: readonly RecordMessage[];
  readonly nextCursor: string | null;
  readonly cursorExpired: boolean;
}

/** One finished request found by `search_team_results` / `Team.results`. */
export interface ResultSummaryView {
  readonly job: Job;
  readonly status: JobStatus;
  /** At most 500 UTF-8 bytes of the task text. */
  readonly requestExcerpt: string;
  /** At most 500 UTF-8 bytes of the answer; null when no answer is available. */
  readonly resultExcerpt: string | null;
  /** True when either excerpt was cut. */
  readonly truncated: boolean;
}

/** A page of finished requests. */
export interface ResultPageView {
  readonly results: readonly ResultSummaryView[];
  readonly nextCursor: string | null;
  readonly cursorExpired: boolean;
}

/** One request or receipt with its retained answer (`read_team_result`, `Team.result`). */
export interface ResultRecordView {
  readonly job: Job;
  /** At most 500 UTF-8 bytes of the job's text. */
  readonly requestExcerpt: string;
  readonly requestTruncated: boolean;
  readonly result: JobResultView;
}

/**
 * The retained answer of a job. Unfinished work has none; a cancelled job shows why it has none
 * (its stored notice) with `available: false`; a completed or failed one shows its bounded text.
 */
export function jobResultOf(job: JobView): JobResultView {
  if (!isTerminal(job.phase) || job.result === null) return { available: false, text: null, truncated: null };
  if (job.phase === JobPhase.CANCELLED) return { available: false, text: job.result.text, truncated: false };
  return { available: true, text: job.result.text, truncated: job.result.truncated };
}

/** A text cut to the excerpt budget (500 UTF-8 bytes) at a character boundary. */
export function excerptOf(text: string): { readonly text: string; readonly truncated: boolean } {
  return truncateUtf8(text, Limits.excerptBytes);
}

/** The summary of a finished request, with both excerpts. */
export function resultSummaryOf(job: Job): ResultSummaryView {
  const request = excerptOf(job.text);
  const result = jobResultOf(job);
  const answer = result.available && result.text !== null ? excerptOf(result.text) : null;
  return {
    job,
    status: statusOf(job.phase),
    requestExcerpt: request.text,
    resultExcerpt: answer?.text ?? null,
    truncated: request.truncated || (answer?.truncated ?? false),
  };
}

/** The record of one job with its retained answer. */
export function resultRecordOf(job: Job): ResultRecordView {
  const request = excerptOf(job.text);
  return { job, requestExcerpt: request.text, requestTruncated: request.truncated, result: jobResultOf(job) };
}

/** A member as tool answers name it: id and name (null when absent). */
export function memberJson(
  id: MemberId | null,
  roster: ReadonlyMap<MemberId, Member>,
): { readonly id: string; readonly name: string | null } | null {
  return id === null ? null : { id, name: roster.get(id)?.name ?? null };
}

/** Who asked, as tool answers show it. */
export function requesterJson(job: Job, roster: ReadonlyMap<MemberId, Member>) {
  return { member: memberJson(job.requester.memberId, roster), conversation_id: job.requester.conversationId };
}

/** One `search_team_results` entry as snake_case JSON. */
export function resultSummaryJson(summary: ResultSummaryView, roster: ReadonlyMap<MemberId, Member>) {
  const { job } = summary;
  return {
    job_id: job.id,
    member: memberJson(job.memberId, roster),
    requester: requesterJson(job, roster),
    status: summary.status,
    parent_id: job.parentId,
    root_id: job.rootId,
    created_at: job.createdAt,
    finished_at: job.finishedAt,
    request_excerpt: summary.requestExcerpt,
    result_excerpt: summary.resultExcerpt,
    truncated: summary.truncated,
  };
}

/** The `read_team_result` answer as snake_case JSON. */
export function resultRecordJson(record: ResultRecordView, roster: ReadonlyMap<MemberId, Member>) {
  const { job } = record;
  return {
    job_id: job.id,
    kind: job.kind,
    member: memberJson(job.memberId, roster),
    requester: requesterJson(job, roster),
    status: statusOf(job.phase),
    parent_id: job.parentId,
    root_id: job.rootId,
    created_at: job.createdAt,
    finished_at: job.finishedAt,
    conversation_id: job.conversationId,
    run_id: job.runId,
    request_excerpt: record.requestExcerpt,
    request_truncated: record.requestTruncated,
    result: { available: record.result.available, text: record.result.text, truncated: record.result.truncated },
  };
}
