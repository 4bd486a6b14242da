/**
 * How long a `/metrics` scrape waits for the database's cluster figures before it answers
 * without them: the same bound as `/ready`'s database check, and well under Prometheus's default
 * scrape timeout (10 s), so a scrape during a database outage still gets the server's own figures.
 */
export const METRICS_DATABASE_TIMEOUT_MS = 2_000;

/** The outcome of one bounded cluster read: its value, or that the database gave none in time. */
export type ClusterReadResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false };

const UNAVAILABLE: ClusterReadResult<never> = { ok: false };

/**
 * How long a read may stay unanswered before a scrape stops waiting on it and reads again: the
 * change feed's bound (`CHANGE_READ_TIMEOUT_MS`). A read sent on a pooled connection whose path
 * died silently gets no answer for minutes, while new connections work again.
 */
export const METRICS_READ_ABANDON_MS = 10_000;

/** Reads given up on and still unanswered, past which a scrape waits on the newest one instead. */
const ABANDONED_READS_MAX = 2;

/**
 * Wraps a database read of the metrics so that a scrape never waits on it longer than `timeoutMs`
 * and never fails because of it: a read that throws or does not answer in time is reported as
 * `{ ok: false }`.
 *
 * @remarks One read at a time: a scrape arriving while an earlier scrape's read is still pending
 * waits on that same read instead of queueing another query, so scrapes against a silent database
 * do not pile queries up in the connection pool that the scheduler needs once the database answers
 * again. A read pending longer than `abandonAfterMs` is given up (at most two at a time, each still
 * holding its connection): waiting on it for good hid the cluster figures for as long as a dead
 * connection took to fail, with the database answering everyone else.
 */
export function boundedClusterRead<T>(
  read: () => Promise<T>,
  timeoutMs: number,
  abandonAfterMs = METRICS_READ_ABANDON_MS,
): () => Promise<ClusterReadResult<T>> {
  let inFlight: { readonly result: Promise<ClusterReadResult<T>>; readonly startedAtMs: number } | null = null;
  let abandoned = 0;
  return () => {
    if (inFlight !== null && Date.now() - inFlight.startedAtMs >= abandonAfterMs && abandoned < ABANDONED_READS_MAX) {
      // Counted until it settles, whatever it settles to (its result never rejects).
      abandoned += 1;
      void inFlight.result.then(() => {
        abandoned -= 1;
      });
      inFlight = null;
    }
    if (inFlight === null) {
      const entry = {
        startedAtMs: Date.now(),
        result: read().then(
          (value): ClusterReadResult<T> => ({ ok: true, value }),
          () => UNAVAILABLE,
        ),
      };
      inFlight = entry;
      void entry.result.then(() => {
        if (inFlight === entry) inFlight = null;
      });
    }
    const current = inFlight.result;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<ClusterReadResult<T>>((resolve) => {
      timer = setTimeout(() => resolve(UNAVAILABLE), timeoutMs);
    });
    return Promise.race([current, timeout]).finally(() => clearTimeout(timer));
  };
}
