/** A socket the keep-alive timer visits. */
export interface KeepAliveTarget {
  /** Drops the socket if it missed the last ping, re-checks its authorization, pings it. */
  tick(): void;
}

/**
 * One timer for every socket: each tick visits them all; returns the function that stops it.
 *
 * @remarks A timer per socket would cost every idle subscribed socket a timer object and a
 * wake-up of its own; one shared interval keeps idle sockets small. The timer does not keep the
 * process alive.
 */
export function startKeepAlive(targets: Iterable<KeepAliveTarget>, intervalMs: number): () => void {
  const timer = setInterval(() => {
    for (const target of targets) target.tick();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
