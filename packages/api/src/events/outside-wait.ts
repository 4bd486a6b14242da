import {
  type Core,
  type JobId,
  WAKE_CHANGES_MAX,
  type WakeResultJson,
  wakeResult,
  wakesWaiter,
} from '@agent-teams/core';
import type { EventHub } from './event-hub.js';

/**
 * The longest the server holds the request of a `wait_for_change` from outside (MCP,
 * `invokeTeamTool`), in ms: below the MCP SDK client's 60 s request timeout and the idle timeouts
 * of common proxies. A wait asked for longer answers `timed_out: true` with `seq` at this point,
 * and the caller calls again with `after_seq: seq` (nothing is missed: the log is the source).
 */
export const OUTSIDE_WAIT_HOLD_MS = 25_000;

/** The tool name an outside caller's request is held for. */
export const OUTSIDE_WAIT_TOOL = 'wait_for_change';

/** What {@link waitForChangeOutside} works with. */
export interface OutsideWaitDeps {
  readonly core: Core;
  /** Wakes the wait when the team's events commit, here or on another server (the change feed). */
  readonly eventHub: EventHub;
  /** How long a request is held at most; default {@link OUTSIDE_WAIT_HOLD_MS} (tests shorten it). */
  readonly holdMs?: number;
}

/**
 * `wait_for_change` for an agent whose turn runs outside the server: checked like a runtime's
 * call, then the request is held until the team has a change after `after_seq` that is not the
 * caller's own (`wakesWaiter`), or until the wait's `timeout_ms` or the hold ends; answers the
 * tool's JSON (`timed_out`, `seq`, `changes`, like a woken built-in wait).
 *
 * @remarks The turn keeps its active slot (it is running elsewhere); only built-in runtimes park.
 * The hub only wakes: every check re-reads the log after `after_seq`, and the wake-up is
 * registered before the read, so a change committed during the read is never slept through.
 */
export async function waitForChangeOutside(
  deps: OutsideWaitDeps,
  jobId: JobId,
  args: unknown,
  signal?: AbortSignal,
): Promise<WakeResultJson> {
  const wait = await deps.core.tools.planOutsideWait(jobId, args);
  const until = Date.now() + Math.min(wait.plan.timeoutMs, deps.holdMs ?? OUTSIDE_WAIT_HOLD_MS);
  const waiter = { id: wait.jobId, memberId: wait.memberId, wait: { ...wait.plan, requestId: 'outside' } };
  for (;;) {
    const stop = new AbortController();
    const woken = deps.eventHub.waitForTeam(wait.teamId, stop.signal);
    try {
      // Its own events are few (its progress, its member's status): read a little past the list.
      const events = await deps.core.events.read(wait.owner, wait.teamId, wait.plan.afterSeq, WAKE_CHANGES_MAX + 8);
      const changes = events.filter((event) => wakesWaiter(event, waiter)).slice(0, WAKE_CHANGES_MAX + 1);
      const left = until - Date.now();
      if (changes.length > 0 || left <= 0 || signal?.aborted) {
        return wakeResult(changes, events.at(-1)?.seq ?? wait.plan.afterSeq);
      }
      await Promise.race([woken, delay(left, stop.signal), aborted(signal, stop.signal)]);
    } finally {
      stop.abort();
    }
  }
}

/** Resolves after `ms`, or at once when `cancel` aborts (the timer is cleared then). */
function delay(ms: number, cancel: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    cancel.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** Resolves when `signal` aborts (the caller went away); never without one. */
function aborted(signal: AbortSignal | undefined, cancel: AbortSignal): Promise<void> {
  if (signal === undefined) return new Promise(() => undefined);
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    cancel.addEventListener('abort', done, { once: true });
  });
}
