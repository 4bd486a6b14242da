import { type JobId, type TeamEvent, TeamEventKind } from '@agent-teams/core';
import { currentFrame, runInFrame } from '../async/async-frame.js';

/** One write of the scheduler's own, while its store call runs. */
interface OwnWrite {
  readonly owner: object;
  readonly key: unknown;
  open: boolean;
}

/**
 * Recognises the scheduler's own commits (a job step's, the admission's) among the local commits
 * whose events it hears.
 *
 * @remarks Every local commit wakes a full pass (admission, claim, wait deadlines), and a full
 * pass re-drives every held job. The scheduler's own commits mostly need none: the step that
 * wrote goes on driving its job, and the admission knows what it admitted. Commits are told
 * apart by the async context of the store call that made them: events are published
 * synchronously right after COMMIT, inside that call. So a person's cancel of the same job,
 * committed meanwhile through another connection, is never mistaken for the scheduler's own.
 */
export class OwnCommits<K> {
  /** Runs one store write under `key`: events it publishes meanwhile see {@link current} return `key`. */
  async write<T>(key: K, work: () => Promise<T>): Promise<T> {
    const write: OwnWrite = { owner: this, key, open: true };
    try {
      // In the async frame the log fields share (`async-frame.ts`): one storage for both.
      return await runInFrame({ logFields: currentFrame().logFields, ownWrite: write }, work);
    } finally {
      // Work started inside the write (a pass its events requested) inherits the context: it
      // must not count as this write once the write has returned.
      write.open = false;
    }
  }

  /** The key of the write whose store call is running in this context, if any. */
  current(): K | undefined {
    const write = currentFrame().ownWrite as OwnWrite | undefined;
    return write?.owner === this && write.open ? (write.key as K) : undefined;
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
