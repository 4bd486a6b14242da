import type pg from 'pg';

/** A transaction's opening statement, as Kysely sends it (`begin`), in any case. */
const BEGIN = /^\s*(begin|start\s+transaction)\s*;?\s*$/i;

/**
 * A statement that writes: an `INSERT INTO`, a `DELETE FROM`, an `UPDATE <table> [[AS] alias] SET`, or one
 * that runs a function. `FOR UPDATE` (a row lock of a read) is not one: it ends a `SELECT`,
 * followed by `of`, `skip`, `nowait`, `)` or the end, never by a table name and `SET`. `MERGE`,
 * `COPY` and `CALL` are never sent by the store, but count as writes if they were.
 */
const WRITES =
  /\binsert\s+into\b|\bdelete\s+from\b|\bupdate\s+(only\s+)?("[^"]*"|\w+)(\s*\.\s*("[^"]*"|\w+))?(\s+(as\s+)?("[^"]*"|\w+))?\s+set\b|\bmerge\s+into\b|^\s*(copy|call|do)\b/i;

/** What Kysely reads of a `BEGIN`'s result (`pg`'s own, for a command without rows). */
const BEGIN_RESULT = Object.freeze({ command: 'BEGIN', rowCount: null, rows: Object.freeze([]), fields: [] });

type QueryFn = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/**
 * A text no statement has, answered by the client itself (nothing is sent): one row whose
 * `client` is the pool client that runs it, so a transaction can send to it straight
 * (`pg-held-connection.ts`). Only a pipelining pool's clients know it.
 */
export const CLIENT_OF_CONNECTION = '-- agent-teams: the client of this connection';

/** The databases opened with a pipelining pool (`openDatabase`), whose clients answer {@link CLIENT_OF_CONNECTION}. */
const pipelined = new WeakSet<object>();

/** Notes that `db`'s pool pipelines (see {@link pipelineBegin}). */
export function notePipelined(db: object): void {
  pipelined.add(db);
}

/** Whether `db` was opened with a pipelining pool. */
export function isPipelined(db: object): boolean {
  return pipelined.has(db);
}

/**
 * Whether a statement may be sent behind a `BEGIN` whose answer has not come back yet: a read,
 * which harms nothing if that `BEGIN` failed and it ran on its own (in autocommit, its row locks
 * end with it). A write waits for the `BEGIN`'s answer, so it never commits alone.
 */
export function mayFollowUnansweredBegin(text: string): boolean {
  return /^\s*(select|with)\b/i.test(text) && !WRITES.test(text);
}

/**
 * Makes a pool client of a pipelining pool (`pg`'s `pipeline: true`) send a transaction's `BEGIN`
 * and its first statement in one round trip instead of two.
 *
 * @remarks Kysely awaits `BEGIN` before it runs the transaction's first statement, and each
 * answer costs a round trip. With `pg` in pipeline mode, a statement is written to the socket at
 * once, behind those still unanswered, and the server answers them in order. So the `BEGIN` is
 * sent, answered to Kysely at once (its result is not read), and the statement after it follows
 * on the wire without waiting; that statement's promise settles after the `BEGIN`'s, with the
 * `BEGIN`'s error when it failed. The statement is sent early only when it reads
 * ({@link mayFollowUnansweredBegin}): every store transaction opens with a read (a lock), and a
 * read that ran outside a transaction because its `BEGIN` failed (a broken connection fails both)
 * changed nothing. A write while the `BEGIN` is unanswered waits for its answer, as before, and is
 never sent when it failed; so does every statement sent after that write.
 */
export function pipelineBegin(client: pg.PoolClient): void {
  const query = client.query.bind(client) as QueryFn;
  /** The last `BEGIN` sent: its answer, and its failure once known. */
  let begin: { readonly answer: Promise<unknown>; failed: { readonly error: unknown } | null } | null = null;
  /** Whether that `BEGIN` is still unanswered. */
  let unanswered = false;
  /**
   * Set while statements wait for an answer before they are sent (a write behind an unanswered
   * `BEGIN`): every later one waits behind them, so none overtakes them on the wire.
   */
  let gate: Promise<unknown> | null = null;
  const after = (before: Promise<unknown>, config: unknown, values: unknown): Promise<unknown> => {
    const of = begin;
    const answer = before.then(() => {
      // Never sent behind a failed `BEGIN`: it would run, and commit, on its own.
      if (of?.failed) throw of.failed.error;
      return query(config, values);
    });
    const settled = answer.then(
      () => undefined,
      () => undefined,
    );
    gate = settled;
    settled.then(() => {
      if (gate === settled) gate = null;
    });
    return answer;
  };
  const send: QueryFn = (config, values, callback) => {
    // Before the `BEGIN` below: it is not sent, so the statement after it is still to come.
    if (config === CLIENT_OF_CONNECTION) return Promise.resolve({ command: 'SELECT', rowCount: 1, rows: [{ client }] });
    if (typeof callback === 'function') return query(config, values, callback);
    if (gate !== null) return after(gate, config, values);
    if (typeof config === 'string' && BEGIN.test(config)) {
      const answer = Promise.resolve(query(config, values));
      const sent: NonNullable<typeof begin> = { answer, failed: null };
      begin = sent;
      unanswered = true;
      // Its failure is told to every statement that waits for it (below), or to nobody if none does.
      answer.then(
        () => {
          if (begin === sent) unanswered = false;
        },
        (error: unknown) => {
          sent.failed = { error };
          if (begin === sent) unanswered = false;
        },
      );
      return Promise.resolve(BEGIN_RESULT);
    }
    if (!unanswered || begin === null) return query(config, values);
    const begun = begin.answer;
    const text = typeof config === 'string' ? config : String((config as { text?: unknown }).text ?? '');
    // A write waits for the answer, and every statement after it waits behind it (`after`).
    if (!mayFollowUnansweredBegin(text)) return after(begun, config, values);
    const result = Promise.resolve(query(config, values));
    return begun.then(
      () => result,
      (error: unknown) => {
        result.catch(() => undefined);
        throw error;
      },
    );
  };
  const wrapped: QueryFn = (config, values, callback) => {
    const answer = send(config, values, callback);
    if (typeof callback === 'function' || typeof config !== 'string' || !COMMIT.test(config)) return answer;
    return Promise.resolve(answer).then(refuseRollback);
  };
  (client as unknown as { query: QueryFn }).query = wrapped;
}

/** A transaction's last statement, as Kysely sends it (`commit`), in any case. */
const COMMIT = /^\s*(commit|end)(\s+(work|transaction))?\s*;?\s*$/i;

/**
 * Thrown when a `COMMIT` answers `ROLLBACK`: a statement of its transaction failed, so the server
 * ended it without writing anything (its error is the cause, `PgHeldConnection.firstFailure`).
 */
export class RolledBackAtCommitError extends Error {
  constructor() {
    super('[agent-teams/api] the transaction was rolled back at its COMMIT: a statement of it had failed');
    this.name = 'RolledBackAtCommitError';
  }
}

/**
 * A `COMMIT`'s answer, or {@link RolledBackAtCommitError} when the server answered `ROLLBACK`. The
 * server does so, without an error, for a transaction a failed statement aborted; with statements
 * sent and left until the `COMMIT` (`pg-held-connection.ts`), that is how such a failure shows, and
 * the write must fail, not report a commit that did not happen.
 */
function refuseRollback(answer: unknown): unknown {
  if ((answer as { command?: unknown } | null)?.command === 'ROLLBACK') throw new RolledBackAtCommitError();
  return answer;
}
