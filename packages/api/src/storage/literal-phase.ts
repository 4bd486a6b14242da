import { ACTIVE_PHASES, JobPhase } from '@agent-teams/core';
import { type RawBuilder, sql } from 'kysely';

/** Every phase a job can be in: the only text {@link literalPhase} writes into a statement. */
const JOB_PHASES: ReadonlySet<string> = new Set(Object.values(JobPhase));

/**
 * A job's phase written into the statement's text rather than bound, wherever a statement
 * compares `phase` (decision 0235).
 *
 * @remarks The inbox's index is partial, `WHERE phase = 'WAITING_INPUT'` (migration 0015), so that
 * a job's other phase changes never write it. While planning, SQLite checks a value bound to a
 * `phase = ?` against that WHERE, and a new binding expires the plan: a statement that bound the
 * phase would re-plan at every run (decision 0231 measured 8.6 → 135 µs for the admission's
 * candidate scan). Lists of bound values (`IN (?, …)`) are not checked so (counted with
 * `sqlite3_stmt_status(SQLITE_STMTSTATUS_REPREPARE)`, docs/benchmarks.md, twenty-second pass). There are a handful of phases, so a statement gets
 * a handful of texts; PostgreSQL's generic plans can use the partial index only with the literal.
 *
 * @throws RangeError when `phase` is not one of {@link JobPhase}'s values: no unchecked text reaches the SQL.
 */
export function literalPhase(phase: JobPhase): RawBuilder<JobPhase> {
  if (typeof phase !== 'string' || !JOB_PHASES.has(phase)) {
    throw new RangeError(`[agent-teams/api] a literal job phase must be one of JobPhase, got ${JSON.stringify(phase)}`);
  }
  return sql.lit(phase);
}

/**
 * Phases as literals for an `IN` list, each once and in one order whatever the caller's order,
 * so one set of phases is one statement text.
 */
export function literalPhases(phases: readonly JobPhase[]): RawBuilder<JobPhase>[] {
  return [...new Set(phases)].sort().map(literalPhase);
}

/** The phases holding a slot (`ACTIVE_PHASES`), as literals: read by the claim, the admission and the active list. */
export const ACTIVE_PHASE_LITERALS = literalPhases(ACTIVE_PHASES);

/** The phases waiting for a slot (QUEUED, ANSWERED), as literals: read by the admission's scan and its idle check. */
export const SLOT_WAITING_PHASE_LITERALS = literalPhases([JobPhase.QUEUED, JobPhase.ANSWERED]);
