// Node's own, not the global a test's fake timers replace: the decision then runs one real turn
// of the loop after the faked timer that asked for it, instead of waiting for a faked immediate.
import { setImmediate } from 'node:timers';

/** A socket the keep-alive timer visits. */
export interface KeepAliveTarget {
  /** Drops the socket if it missed the last ping, re-checks its authorization, pings it. */
  tick(): void;
}

/**
 * Called from a timer's callback, runs `decide` after the loop's next poll phase: a timer that
 * decides about a peer (its pong missed, its `connection_init` late) fires in the timers phase,
 * before the poll phase that reads sockets, so after a stall of the loop it would otherwise judge
 * a peer whose answer arrived during the stall and sits unread. (The poll phase reads what each
 * socket has, up to libuv's bounds per turn: a pong queued behind megabytes may still wait.)
 */
export function afterPendingInput(decide: () => void): void {
  setImmediate(decide);
}

/**
 * One timer for every socket: each tick visits them all; returns the function that stops it.
 *
 * @remarks A timer per socket would cost every idle subscribed socket a timer object and a
 * wake-up of its own; one shared interval keeps idle sockets small. The timer does not keep the
 * process alive. The visit waits for the sockets' pending input ({@link afterPendingInput}): a
 * stall of the loop longer than the interval does not drop the peers that answered in time.
 */
export function startKeepAlive(targets: Iterable<KeepAliveTarget>, intervalMs: number): () => void {
  let stopped = false;
  const timer = setInterval(() => {
    afterPendingInput(() => {
      if (stopped) return;
      for (const target of targets) target.tick();
    });
  }, intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
