import { NO_USAGE, type UsageEntry, type UsageScope, type UsageTotals, usageScopeKey } from '@agent-teams/core';
import { type Kysely, sql } from 'kysely';
import { CompiledStatement } from './compiled-statement.js';
import type { Database } from './database-types.js';
import { writeThenCheck } from './pg-held-connection.js';

/**
 * Inserts the usage of one model call unless its id is recorded already (idempotent), so a
 * runtime may record it inside its own transaction and again after a restart.
 */
export async function insertUsage(db: Kysely<Database>, entry: UsageEntry, now: string): Promise<void> {
  // Nothing reads the answer: on a held PostgreSQL connection it goes with what follows, the
  // COMMIT too (`pg-held-connection.ts`).
  await writeThenCheck(
    db,
    () => sendUsage(db, entry, now),
    () => undefined,
    true,
  );
}

function sendUsage(db: Kysely<Database>, entry: UsageEntry, now: string) {
  return INSERT_USAGE.execute(
    db,
    entry.id,
    entry.teamId,
    entry.jobId,
    entry.conversationId,
    entry.model,
    entry.inputTokens,
    entry.cachedInputTokens ?? 0,
    entry.outputTokens,
    entry.cost,
    now,
  );
}

/** {@link insertUsage}'s statement, compiled once (`compiled-statement.ts`). */
const INSERT_USAGE = new CompiledStatement(
  10,
  (
    db,
    id: string,
    teamId: string,
    jobId: string,
    conversationId: string,
    model: string,
    inputTokens: number,
    cachedInputTokens: number,
    outputTokens: number,
    cost: number,
    now: string,
  ) =>
    db
      .insertInto('model_usage')
      .values({
        id,
        team_id: teamId,
        job_id: jobId,
        conversation_id: conversationId,
        model,
        input_tokens: inputTokens,
        cached_input_tokens: cachedInputTokens,
        output_tokens: outputTokens,
        cost,
        created_at: now,
      })
      .onConflict((conflict) => conflict.column('id').doNothing()),
);

interface SumRow {
  readonly key: string;
  readonly input_tokens: number | string | null;
  readonly cached_input_tokens: number | string | null;
  readonly output_tokens: number | string | null;
  readonly cost: number | string | null;
  readonly calls: number | string;
}

/**
 * Sums usage per scope: one grouped query per scope kind asked (a `chain` joins `jobs` for the
 * root). PostgreSQL answers SUM/COUNT of integers as strings, hence the `Number()`s.
 */
export async function usageTotals(
  db: Kysely<Database>,
  scopes: readonly UsageScope[],
): Promise<ReadonlyMap<string, UsageTotals>> {
  const result = new Map<string, UsageTotals>(scopes.map((scope) => [usageScopeKey(scope), NO_USAGE]));
  const idsOf = (kind: UsageScope['kind']) => [...new Set(scopes.filter((s) => s.kind === kind).map((s) => s.id))];
  const sums = [
    sql<number | string | null>`sum(model_usage.input_tokens)`.as('input_tokens'),
    sql<number | string | null>`sum(model_usage.cached_input_tokens)`.as('cached_input_tokens'),
    sql<number | string | null>`sum(model_usage.output_tokens)`.as('output_tokens'),
    sql<number | string | null>`sum(model_usage.cost)`.as('cost'),
    sql<number | string>`count(*)`.as('calls'),
  ];
  const base = () => db.selectFrom('model_usage');
  const rows: { kind: UsageScope['kind']; rows: SumRow[] }[] = [];
  const direct = [
    ['job', 'model_usage.job_id'],
    ['conversation', 'model_usage.conversation_id'],
    ['team', 'model_usage.team_id'],
  ] as const;
  for (const [kind, column] of direct) {
    const ids = idsOf(kind);
    if (ids.length === 0) continue;
    const found = await base()
      .select([sql.ref<string>(column).as('key'), ...sums])
      .where(column, 'in', ids)
      .groupBy(column)
      .execute();
    rows.push({ kind, rows: found as SumRow[] });
  }
  const roots = idsOf('chain');
  if (roots.length > 0) {
    const found = await base()
      .innerJoin('jobs', 'jobs.id', 'model_usage.job_id')
      .select([sql.ref<string>('jobs.root_id').as('key'), ...sums])
      .where('jobs.root_id', 'in', roots)
      .groupBy('jobs.root_id')
      .execute();
    rows.push({ kind: 'chain', rows: found as SumRow[] });
  }
  for (const group of rows) {
    for (const row of group.rows) {
      result.set(`${group.kind}:${row.key}`, {
        inputTokens: Number(row.input_tokens ?? 0),
        cachedInputTokens: Number(row.cached_input_tokens ?? 0),
        outputTokens: Number(row.output_tokens ?? 0),
        cost: Number(row.cost ?? 0),
        calls: Number(row.calls),
      });
    }
  }
  return result;
}
