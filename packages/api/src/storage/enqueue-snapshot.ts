import { type EnqueueRequestsArgs, type EnqueueSnapshot, type JobId, JobKind, Limits } from '@agent-teams/core';
import { type Kysely, type Selectable, sql } from 'kysely';
import { CompiledListStatement } from './compiled-statement.js';
import type { Database, TeamsTable } from './database-types.js';
import { toJob, toTeam, withoutSeq } from './row-mappers.js';
import type { WriteScope } from './write-transaction.js';

/** The kind the team's request count counts, as a literal. */
const REQUEST = sql.lit(JobKind.REQUEST);

/** The values of one idempotency key in {@link EXISTING}: requester, client key, member. */
const KEY_VALUES = 3;

/**
 * The jobs already stored under the asked idempotency keys, over `[teamId, ...key values]`:
 * compiled once per key count (`compiled-statement.ts`); a send names at most `maxMembers` keys.
 */
const EXISTING = new CompiledListStatement(1 + KEY_VALUES * Limits.maxMembers, (db: Kysely<Database>, values) => {
  const [teamId, ...flat] = values;
  const keys: string[][] = [];
  for (let at = 0; at < flat.length; at += KEY_VALUES) keys.push(flat.slice(at, at + KEY_VALUES));
  return db
    .selectFrom('jobs')
    .selectAll()
    .where('team_id', '=', teamId as string)
    .where((eb) =>
      eb.or(
        keys.map(([requesterKey, clientKey, memberId]) =>
          eb.and([
            eb('requester_key', '=', requesterKey as string),
            eb('client_key', '=', clientKey as string),
            eb('member_id', '=', memberId as string),
          ]),
        ),
      ),
    )
    .orderBy('seq');
});

/**
 * The team's request count and one sum per asked chain, over `[teamId, ...roots]`, aggregated in
 * the statement (grouping by chain sent a row per chain of the team to the process: up to 100
 * per request); compiled once per chain count.
 */
const COUNTS = new CompiledListStatement(1 + Limits.maxMembers, (db: Kysely<Database>, values) => {
  const [teamId, ...roots] = values;
  return (
    db
      .selectFrom('jobs')
      .select((eb) => [
        eb.fn.countAll<number | string>().as('n'),
        ...roots.map((root, i) =>
          eb.fn.sum<number | string | null>(eb.case().when('root_id', '=', root).then(1).else(0).end()).as(`r${i}`),
        ),
      ])
      .where('team_id', '=', teamId as string)
      // A literal: bound, the kind is checked against the partial index of receipts (`kind =
      // 'RECEIPT'`) while planning, and SQLite re-plans the statement at every run (decision 0231).
      .where('kind', '=', REQUEST)
  );
});

/** What `decide` sees of an enqueue, read under the team lock (the caller holds `team` locked). */
export async function readEnqueueSnapshot(
  scope: WriteScope,
  team: Selectable<TeamsTable>,
  args: EnqueueRequestsArgs,
): Promise<EnqueueSnapshot> {
  const keyValues = args.keys.flatMap((key) => [key.requesterConversationId ?? '', key.clientKey, key.memberId]);
  const existing = args.keys.length === 0 ? [] : await EXISTING.rows(scope.trx, [args.teamId, ...keyValues]);
  const roots = [...new Set(args.roots)];
  const [counts] = await COUNTS.rows(scope.trx, [args.teamId, ...roots]);
  if (counts === undefined) throw new Error('[agent-teams/api] the request count returned no row');
  const sums = counts as unknown as Record<string, number | string | null>;
  const chainCounts = new Map<JobId, number>(roots.map((root, i) => [root, Number(sums[`r${i}`] ?? 0)]));
  return {
    team: withoutSeq(toTeam(team)),
    existing: existing.map(toJob),
    requestCount: Number(counts.n),
    chainCounts,
    // Under the same lock: a send checks its recipients here instead of reading the roster first.
    ...(args.withMembers === true ? { members: await scope.roster(args.teamId) } : {}),
  };
}
