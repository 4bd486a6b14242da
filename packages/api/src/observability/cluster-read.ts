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
 * Wraps a database read of the metrics so that a scrape never waits on it longer than `timeoutMs`
 * and never fails because of it: a read that throws or does not answer in time is reported as
 * `{ ok: false }`.
 *
 * @remarks One read at a time: a scrape arriving while an earlier scrape's read is still pending
 * (a database that stopped answering keeps it pending for minutes) waits on that same read
 * instead of queueing another query, so scrapes against a silent database do not pile queries up
 * in the connection pool that the scheduler needs once the database answers again.
 */
export function boundedClusterRead<T>(read: () => Promise<T>, timeoutMs: number): () => Promise<ClusterReadResult<T>> {
  let inFlight: Promise<ClusterReadResult<T>> | null = null;
  return () => {
    inFlight ??= read().then(
      (value): ClusterReadResult<T> => ({ ok: true, value }),
      () => UNAVAILABLE,
    );
    const current = inFlight;
    void current.then(() => {
      if (inFlight === current) inFlight = null;
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<ClusterReadResult<T>>((resolve) => {
      timer = setTimeout(() => resolve(UNAVAILABLE), timeoutMs);
    });
    return Promise.race([current, timeout]).finally(() => clearTimeout(timer));
  };
}
