import { type Compilable, type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from './database-types.js';

/**
 * What a failed server check's error says first (inside PostgreSQL's own message about a text that
 * is not an integer, see {@link exactlyOneRow}).
 */
const MARK = 'agent-teams check failed: ';

/** PostgreSQL's `invalid_text_representation`, the code a failed check raises. */
const INVALID_TEXT = '22P02';

/**
 * PostgreSQL: `write` (a data-modifying statement with a `RETURNING` list) as one statement on `db` that
 * fails unless it wrote exactly one row, answering that row's returned columns. `what` names the
 * check in the error ({@link serverCheckError}): a constant text, never a value.
 *
 * @remarks Why on the server: a write whose answer is only checked is sent without waiting for it,
 * and the transaction's COMMIT follows it on the wire (`pg-held-connection.ts`). A check run when
 * the answer comes would come after that COMMIT; one the server runs fails the statement, which
 * aborts the transaction, and its COMMIT then answers ROLLBACK (`pg-pipeline.ts` throws). Plain
 * SQL has no way to raise an error, so the check casts a text that is not a number to an integer
 * (`invalid_text_representation`); the text names the check and holds the count, so it is never a
 * constant the planner could fold (and raise) before the write ran. The count reads the write's
 * rows through a one-row aggregate, so the check is evaluated even when it wrote none.
 */
export function exactlyOneRow<R>(db: Kysely<Database>, write: Compilable<R>, what: string): Compilable<R> {
  return exactlyRows(db, write, what, 1);
}

/** {@link exactlyOneRow} for a statement that must write exactly `rows` rows (answering them). */
export function exactlyRows<R>(db: Kysely<Database>, write: Compilable<R>, what: string, rows: number): Compilable<R> {
  const checked = sql<R>`with "written" as (${write}) ${theRowsOf('written', what, rows)}`;
  return { compile: () => checked.compile(db) };
}

/**
 * The select that ends a data-modifying `WITH` whose query `cte` (a name of this statement's own,
 * never a value) must have written exactly `rows` rows: those rows, or the statement fails (see
 * {@link exactlyOneRow}, whose remarks say how).
 */
export function theRowsOf(cte: string, what: string, rows = 1): RawBuilder<unknown> {
  if (!/^[a-z_]+$/.test(cte) || /['\\]/.test(what) || !Number.isSafeInteger(rows) || rows < 0) {
    throw new Error(`[agent-teams/api] a server check's names must be plain text: ${cte}, ${what}, ${rows}`);
  }
  const name = sql.ref(cte);
  return sql`select ${name}.* from (select count(*) as "n" from ${name}) as "counted" left join ${name} on true where case when "counted"."n" = ${sql.lit(rows)} then true else (${sql.lit(`${MARK}${what}, rows: `)} || "counted"."n")::int = 0 end`;
}

/**
 * The check of a run's conditional write carried by a job write (its row's insert or move, its
 * step's messages): refused when another execution ended the run first (a lost ride).
 */
export const RUN_ALREADY_ENDED = 'a run another execution ended first';

/** A write the server refused (see {@link exactlyOneRow}): which check, and the rows it found. */
export class ServerRefusedError extends Error {
  constructor(
    /** The check's name, as the statement gave it. */
    readonly check: string,
    /** The rows the statement wrote. */
    readonly rows: number,
    cause: unknown,
  ) {
    super(`[agent-teams/api] the server refused a write: ${check}, rows: ${rows}`, { cause });
    this.name = 'ServerRefusedError';
  }
}

/** A failed server check's error as a {@link ServerRefusedError} (the driver's error as its cause); any other error as it is. */
export function serverCheckError(error: unknown): unknown {
  if (typeof error !== 'object' || error === null || error instanceof ServerRefusedError) return error;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code !== INVALID_TEXT || typeof message !== 'string') return error;
  // Not anchored at the message's end: a server whose messages are translated quotes the value
  // its own way (»…«, « … »); the check's own text is never translated.
  const found = new RegExp(`${MARK}(.*?), rows: (\\d+)`).exec(message);
  if (found === null) return error;
  return new ServerRefusedError(found[1] as string, Number(found[2]), error);
}
