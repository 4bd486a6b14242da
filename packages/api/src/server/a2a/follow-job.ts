import { type Core, isTerminal, type JobView, type OwnerId, type TeamId } from '@agent-teams/core';
import type { TeamEventView } from '../../schema/views.js';
import type { TeamFeeds } from '../team-feed.js';
import { endsStream, stateKey } from './task-view.js';

/** What following a job reads: the team's shared feed (the log behind `teamEvents`). */
export interface FollowDeps {
  readonly core: Core;
  readonly teamFeeds: TeamFeeds<TeamEventView>;
}

/** Where to start following: the job as last read, and the team's event seq read before it. */
export interface FollowStart {
  readonly owner: OwnerId;
  readonly teamId: TeamId;
  /** The team's `lastEventSeq` read before `job` (so no change after it is missed). */
  readonly afterSeq: number;
  readonly job: JobView;
  /**
   * Resubscribing to a job that already asks a question goes on to its next state (the answer may
   * come from another client) instead of ending at once, as the protocol's resubscribe does.
   */
  readonly pastQuestion?: boolean;
}

/**
 * The snapshots of one job an A2A client is shown, in order: the job as it is, then each change
 * of its state (see `stateKey`), ending after a final state or a question (input-required), or
 * when `signal` aborts.
 *
 * @remarks It follows the team's shared feed, the same in-order log `teamEvents` follows, so it
 * sees changes made by any server of a cluster and survives nothing-in-memory: a client that
 * reconnects resubscribes from the job's stored state.
 */
export async function* followJob(
  deps: FollowDeps,
  start: FollowStart,
  signal: AbortSignal,
): AsyncGenerator<JobView, void, undefined> {
  let last = start.job;
  yield last;
  if (isTerminal(last.phase) || (endsStream(last) && start.pastQuestion !== true)) return;
  const cursor = deps.teamFeeds.follow(start.owner, start.teamId, start.afterSeq, start.afterSeq);
  const stop = () => void cursor.return?.();
  signal.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      if (signal.aborted) return;
      const next = await cursor.next();
      if (next.done) return;
      const view = next.value;
      if (view.__typename !== 'JobChanged' || view.job.id !== last.id) continue;
      if (stateKey(view.job) === stateKey(last)) continue;
      last = view.job;
      yield last;
      if (endsStream(last)) return;
    }
  } finally {
    signal.removeEventListener('abort', stop);
    await cursor.return?.();
  }
}
