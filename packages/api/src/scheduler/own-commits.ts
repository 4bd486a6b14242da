import {
  ACTIVE_PHASES,
  type AdmittedJob,
  type JobId,
  type PublishWindow,
  type TeamEvent,
  TeamEventKind,
} from '@agent-teams/core';

/**
 * Recognises the scheduler's own commits (a job step's, the admission's) among the local commits
 * whose events it hears.
 *
 * @remarks Every local commit wakes a full pass (admission, claim, wait deadlines), and a full
 * pass re-drives every held job. The scheduler's own commits mostly need none: the step that
 * wrote goes on driving its job, and the admission knows what it admitted. Each of its store
 * writes carries a {@link PublishWindow} from {@link window}: the store opens it right before the
 * event sink hears that write's events and closes it right after, all synchronously, so
 * {@link current} names the write exactly while its own events are being heard. A person's cancel
 * of the same job, committed meanwhile through another call, is published outside that window and
 * never mistaken for the scheduler's own. (Until decision 0236 an `AsyncLocalStorage` carried the
 * mark; its promise hooks cost every promise of the process.)
 *
 * Not re-entrant: one window of an instance is open at a time. That holds because a store
 * publishes only after an `await` of its own write, never from inside a sink that is hearing
 * another write's events, so windows never nest.
 */
export class OwnCommits<K> {
  /** The key of the write whose events are being published now, if any. */
  #open: K | undefined;

  /** The window to pass with one store write under `key` (`UpdateJobOptions.publishing`, `AdmitArgs.publishing`). */
  window(key: K): PublishWindow {
    return {
      opened: () => {
        this.#open = key;
      },
      closed: () => {
        this.#open = undefined;
      },
    };
  }

  /** The key of the write whose events are being published right now, if any. */
  current(): K | undefined {
    return this.#open;
  }
}

/**
 * True when an event of one of the scheduler's own commits leaves admission as it was, given
 * which jobs that commit was about (`ours`): a change or a delivered message of one of those
 * jobs, a member's activity, a record entry. A change of any other job (a receipt, a follow-up)
 * may add work. Only while no job waits for a change: then any event may end that wait.
 */
export function ownCommitEvent(event: TeamEvent, ours: (jobId: JobId) => boolean): boolean {
  switch (event.kind) {
    case TeamEventKind.JOB_CHANGED:
    case TeamEventKind.MESSAGE_DELIVERED:
      return event.jobId !== null && ours(event.jobId);
    case TeamEventKind.MEMBER_CHANGED:
    case TeamEventKind.RECORD_APPENDED:
      return true;
    default:
      return false;
  }
}

/**
 * True when an admission's own commit needs no further pass: it started every job that wanted a
 * slot (`candidates`) and its `events` name only those. A job admission ended instead (its agent
 * gone, its team closed) lets the next job of its conversation become a candidate.
 */
export function settles(admitted: readonly AdmittedJob[], candidates: number, events: readonly TeamEvent[]): boolean {
  const ids = new Set<string>(admitted.map((entry) => entry.job.id));
  const started = admitted.filter((entry) => ACTIVE_PHASES.includes(entry.job.phase)).length;
  return started >= candidates && events.every((event) => ownCommitEvent(event, (jobId) => ids.has(jobId)));
}
