import { JobKind } from '@agent-teams/core';
import { type RawBuilder, sql } from 'kysely';

/** Every kind a job can have: the only text {@link literalKind} writes into a statement. */
const JOB_KINDS: ReadonlySet<string> = new Set(Object.values(JobKind));

/**
 * A job's kind written into the statement's text rather than bound. A partial index of `jobs`
 * tests `kind = 'RECEIPT'` (`jobs_one_receipt_per_request`): while planning, SQLite checks the
 * value bound to a `kind = ?` against it, and a new binding expires the plan, so a statement that
 * binds the kind re-plans at every run (decision 0231). There are four kinds, so a statement gets
 * at most four texts.
 *
 * @throws RangeError when `kind` is not one of {@link JobKind}'s values: no unchecked text reaches the SQL.
 */
export function literalKind(kind: JobKind): RawBuilder<JobKind> {
  if (typeof kind !== 'string' || !JOB_KINDS.has(kind)) {
    throw new RangeError(`[agent-teams/api] a literal job kind must be one of JobKind, got ${JSON.stringify(kind)}`);
  }
  return sql.lit(kind);
}

/** `'REQUEST'` as a literal, for the reads of a team's requests. */
export const REQUEST_KIND = literalKind(JobKind.REQUEST);
