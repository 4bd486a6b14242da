import { type RawBuilder, sql } from 'kysely';

/** How many distinct limits a statement read with {@link literalLimit} gets a plan for (`CompiledShapes`). */
export const LIMIT_SHAPES = 16;

/**
 * `LIMIT n` written into the statement's text rather than bound: SQLite re-plans a statement with
 * a top-level `LIMIT ?` at every run (it reads the bound limit while planning), which cost the
 * history and record reads of a turn 10–15 µs each (decision 0231). A statement built with it
 * gets one plan per limit (`CompiledShapes`, keyed by the limit).
 *
 * @throws RangeError when `limit` is not a non-negative safe integer (never text in the SQL).
 */
export function literalLimit(limit: number): RawBuilder<number> {
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new RangeError(`[agent-teams/api] a literal limit must be a non-negative integer, got ${String(limit)}`);
  }
  return sql.lit(limit);
}
