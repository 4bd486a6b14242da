import pg from 'pg';

/** One statement a pool client sent: its text, and the round trip it went in. */
export interface SentStatement {
  readonly text: string;
  /** Statements sent without an answer of this client coming in between share a round trip. */
  readonly trip: number;
  /** Its place among every statement recorded, of all clients. */
  readonly at: number;
}

/** What {@link recordRoundTrips} recorded, per client. */
export interface RoundTripRecorder {
  /** Where the next statement will be recorded (for {@link transactions}). */
  mark(): number;
  /**
   * The transactions (from `BEGIN` to `COMMIT` or `ROLLBACK`) whose `BEGIN` was sent at or after
   * `since` (a {@link mark}), statement by statement, in the order they began.
   */
  transactions(since?: number): SentStatement[][];
  /** Puts `pg.Client` back as it was. */
  stop(): void;
}

/**
 * Records every statement each `pg` client sends, and which round trip it went in: a statement
 * sent after an answer of that client came belongs to a new round trip, one sent before any new
 * answer to the same one. Answers are read from the socket between turns of the event loop, so
 * statements sent in one chain of promises without awaiting an answer always share a round trip.
 * Install it before the pool opens its connections: the store's wrappers bind `query` then.
 */
export function recordRoundTrips(): RoundTripRecorder {
  const query = pg.Client.prototype.query;
  const byClient = new Map<object, { statements: SentStatement[]; trip: number; answered: boolean }>();
  let recorded = 0;
  pg.Client.prototype.query = function (this: object, ...args: unknown[]) {
    const [first] = args as [{ text?: string } | string];
    const text = (typeof first === 'string' ? first : (first?.text ?? '')).replace(/\s+/g, ' ').trim();
    let state = byClient.get(this);
    if (state === undefined) {
      state = { statements: [], trip: 0, answered: true };
      byClient.set(this, state);
    }
    if (state.answered) state.trip += 1;
    state.answered = false;
    state.statements.push({ text, trip: state.trip, at: recorded });
    recorded += 1;
    const answer = (query as (...a: unknown[]) => unknown).apply(this, args);
    const seen = state;
    const note = () => {
      seen.answered = true;
    };
    if (answer instanceof Promise) answer.then(note, note);
    return answer;
  } as typeof query;
  return {
    mark: () => recorded,
    transactions(since = 0) {
      const all: SentStatement[][] = [];
      for (const { statements } of byClient.values()) {
        let open: SentStatement[] | null = null;
        for (const statement of statements) {
          if (/^begin$/i.test(statement.text)) open = statement.at >= since ? [] : null;
          open?.push(statement);
          if (open !== null && /^(commit|rollback)$/i.test(statement.text)) {
            all.push(open);
            open = null;
          }
        }
      }
      return all.sort((a, b) => (a[0]?.at ?? 0) - (b[0]?.at ?? 0));
    },
    stop() {
      pg.Client.prototype.query = query;
    },
  };
}

/** How many round trips a transaction's statements took. */
export function tripsOf(statements: readonly SentStatement[]): number {
  return new Set(statements.map((statement) => statement.trip)).size;
}
