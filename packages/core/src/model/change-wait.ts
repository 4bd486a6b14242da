import { jsonBytes } from '../budget/fit-to-budget.js';
import { Limits } from '../limits/limits.js';
import type { Timestamp } from '../ports/clock.js';
import { type TeamEvent, TeamEventKind } from '../ports/event-sink.js';
import type { JobId, MemberId } from './ids.js';

/**
 * The `wait_for_change` a WAITING_CHANGE job waits in (decision 0165): it wakes when the team
 * has an event with seq > `afterSeq` that is not its own parking (see {@link wakesWaiter}), or
 * at `deadline`.
 */
export interface ChangeWait {
  /** Names this wait within its job's run, so a wake-up answers exactly this call. */
  readonly requestId: string;
  readonly afterSeq: number;
  readonly timeoutMs: number;
  readonly deadline: Timestamp;
}

/** A wait as the core plans it for a runtime (the runtime adds the request id). */
export type ChangeWaitPlan = Omit<ChangeWait, 'requestId'>;

/** `PendingResponse.kind` of a woken wait (the tool result the run continues with). */
export const WAKE_KIND = 'CHANGE' as const;

/** The most changes a wake-up result lists (oldest first); more is said with `more: true`. */
export const WAKE_CHANGES_MAX = 100;

/**
 * True when `event` wakes the waiting `job`: it came after the wait's `afterSeq` and is not the
 * job's own parking (its JOB_CHANGED, and its member's MEMBER_CHANGED that the same step wrote).
 * A new request for the member still wakes it: its own JOB_CHANGED names the new job.
 */
export function wakesWaiter(
  event: Pick<TeamEvent, 'seq' | 'kind' | 'jobId' | 'memberId'>,
  job: { readonly id: JobId; readonly memberId: MemberId | null; readonly wait: ChangeWait },
): boolean {
  if (event.seq <= job.wait.afterSeq || event.jobId === job.id) return false;
  return !(event.kind === TeamEventKind.MEMBER_CHANGED && event.memberId === job.memberId);
}

/** One entry of a wake-up's `changes`. */
export interface ChangeJson {
  readonly kind: string;
  readonly seq: number;
  readonly job_id?: string;
  readonly member_id?: string;
  readonly record_id?: string;
  /** The task of a TASK_CHANGED, so a woken member knows which task to read again. */
  readonly task_id?: string;
  /** Why the system changed it (a retired owner, a closed team), when it did. */
  readonly reason?: string;
}

/** The tool result `wait_for_change` answers when its run continues. */
export interface WakeResultJson {
  readonly timed_out: boolean;
  readonly seq: number;
  readonly changes: readonly ChangeJson[];
  /** Present (true) when more changes happened than {@link WAKE_CHANGES_MAX}. */
  readonly more?: true;
}

/**
 * The result of a woken wait: the changes that woke it (oldest first, at most
 * {@link WAKE_CHANGES_MAX} and within the 24,000-byte tool budget, `more: true` when some were
 * left out), the team's newest seq, and `timed_out` when nothing changed.
 */
export function wakeResult(changes: readonly TeamEvent[], lastSeq: number): WakeResultJson {
  const timed_out = changes.length === 0;
  // Measured with `more` present, so adding it never pushes a full list past the budget.
  let bytes = jsonBytes({ timed_out, seq: lastSeq, changes: [], more: true });
  const listed: ChangeJson[] = [];
  for (const event of changes.slice(0, WAKE_CHANGES_MAX)) {
    const entry: ChangeJson = {
      kind: event.kind,
      seq: event.seq,
      ...(event.jobId === null ? {} : { job_id: event.jobId }),
      ...(event.memberId === null ? {} : { member_id: event.memberId }),
      ...(event.recordId === null ? {} : { record_id: event.recordId }),
      ...(event.taskId == null ? {} : { task_id: event.taskId }),
      ...(event.reason == null ? {} : { reason: event.reason }),
    };
    bytes += jsonBytes(entry) + (listed.length > 0 ? 1 : 0);
    if (bytes > Limits.toolResponseBytes) break;
    listed.push(entry);
  }
  return {
    timed_out,
    seq: lastSeq,
    changes: listed,
    ...(listed.length < changes.length ? { more: true as const } : {}),
  };
}
