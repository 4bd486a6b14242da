import { type EnqueueRequestsArgs, type EnqueueSnapshot, type JobId, JobKind, Limits } from '@agent-teams/core';
import { type Kysely, type Selectable, sql } from 'kysely';
import { CompiledShapes } from './compiled-statement.js';
import type { Database, JobsTable, TeamsTable } from './database-types.js';
import { toJob, toTeam, withoutSeq } from './row-mappers.js';
import type { WriteScope } from './write-transaction.js';

/** The kind the team's request count counts, as a literal. */
const REQUEST = sql.lit(JobKind.REQUEST);

/** The values of one idempotency key in {@link SNAPSHOT}: requester, client key, member. */
const KEY_VALUES = 3;

/** The snapshot's own columns beside the job's (no `jobs` column has these names). */
const COUNT = 'snapshot__n';
const chainColumn = (i: number) => `snapshot__r${i}`;

/**
 * The team's request count, one sum per asked chain, and the jobs already stored under the asked
 * idempotency keys, in one statement: `[teamId, ...roots, teamId, ...key values]`, compiled once
 * per (key count, chain count).
 *
 * @remarks The counts are one row aggregated in the statement (grouping by chain sent a row per
 * chain of the team to the process: up to 100 per request); the stored jobs are joined to it, so
 * the answer is that row alone when no key is used yet, or one row per stored job, each carrying
 * the counts. One read instead of two: on PostgreSQL each was a round trip inside the enqueue's
 * transaction, which holds its team's lock (decision 0250). The kind is a literal: bound, it is
 * checked against the partial index of receipts (`kind = 'RECEIPT'`) while planning, and SQLite
 * re-plans the statement at every run (decision 0231).
 */
const SNAPSHOT = new CompiledShapes<Record<string, unknown>>(Limits.maxMembers * (Limits.maxMembers + 1));

function snapshotRows(db: Kysely<Database>, teamId: string, roots: readonly string[], keyValues: readonly string[]) {
  const keys = keyValues.length / KEY_VALUES;
  return SNAPSHOT.execute(
    db,
    `${keys}:${roots.length}`,
    (target, values) => {
      const [countTeam, ...rest] = values as string[];
      const chains = rest.slice(0, roots.length);
      const [joinTeam, ...flat] = rest.slice(roots.length);
      const counts = target
        .selectFrom('jobs')
        .select((eb) => [
          eb.fn.countAll<number | string>().as('n'),
          ...chains.map((root, i) =>
            eb.fn.sum<number | string | null>(eb.case().when('root_id', '=', root).then(1).else(0).end()).as(`r${i}`),
          ),
        ])
        .where('team_id', '=', countTeam as string)
        .where('kind', '=', REQUEST)
        .as('c');
      const base = target
        .selectFrom(counts)
        .select((eb) => [
          eb.ref('c.n').as(COUNT),
          ...chains.map((_, i) => eb.ref(`c.r${i}` as 'c.n').as(chainColumn(i))),
        ]);
      if (keys === 0) return base;
      // One exact lookup of the unique key's index per key, not an OR: with many keys SQLite
      // planned the OR as a scan of the team's jobs (`jobs_team_seq_idx`).
      const lookup = (k: number) =>
        target
          .selectFrom('jobs')
          .selectAll()
          .where('team_id', '=', joinTeam as string)
          .where('requester_key', '=', flat[k * KEY_VALUES] as string)
          .where('client_key', '=', flat[k * KEY_VALUES + 1] as string)
          .where('member_id', '=', flat[k * KEY_VALUES + 2] as string);
      let stored = lookup(0);
      for (let k = 1; k < keys; k += 1) stored = stored.unionAll(lookup(k));
      return base
        .leftJoin(stored.as('j'), (join) => join.onTrue())
        .selectAll('j')
        .orderBy('j.seq');
    },
    [teamId, ...roots, ...(keys === 0 ? [] : [teamId, ...keyValues])],
  );
}

/**
 * What `decide` sees of an enqueue, read under the team lock: `locking` is that lock, asked and not
 * yet answered (`WriteScope.lockOwnedTeam`); its rejection (NOT_FOUND, a deadlock) is this read's.
 *
 * @remarks The reads are sent before the lock's answer comes. On PostgreSQL one backend runs a
 * transaction's statements in the order they arrive, so they still run once the lock is held, and
 * read what a read after it would (each statement of READ COMMITTED takes its snapshot when it
 * starts); they go in the lock's round trip instead of one of their own. When the lock fails, its
 * error is thrown and the reads are dropped unread: on PostgreSQL they fail too when the lock's
 * statement failed (the transaction is aborted), and read what they read when it found no team of
 * this owner (NOT_FOUND is decided here), which nobody sees. On SQLite the write lock is held
 * already and the statements run in the order called.
 */
export async function readEnqueueSnapshot(
  scope: WriteScope,
  locking: Promise<Selectable<TeamsTable>>,
  args: EnqueueRequestsArgs,
): Promise<EnqueueSnapshot> {
  // Handled at once: it must not be an unhandled rejection when a read below throws first.
  locking.catch(() => undefined);
  const keyValues = args.keys.flatMap((key) => [key.requesterConversationId ?? '', key.clientKey, key.memberId]);
  const roots = [...new Set(args.roots)];
  // Under the same lock: a send checks its recipients here instead of reading the roster first.
  const members = args.withMembers === true ? scope.roster(args.teamId) : null;
  const reading = snapshotRows(scope.trx, args.teamId, roots, keyValues);
  // Handled here too: neither may be an unhandled rejection when the lock or the other fails first.
  members?.catch(() => undefined);
  reading.catch(() => undefined);
  const team = await locking;
  const { rows } = await reading;
  const [counts] = rows;
  if (counts === undefined) throw new Error('[agent-teams/api] the request count returned no row');
  const chainCounts = new Map<JobId, number>(roots.map((root, i) => [root, Number(counts[chainColumn(i)] ?? 0)]));
  // A row without a job is the counts alone (no key used yet); the others are stored jobs, each
  // once (a key asked twice finds its job twice).
  const seen = new Set<unknown>();
  const existing = rows
    .filter((row) => row.id !== null && row.id !== undefined && !seen.has(row.id) && seen.add(row.id))
    .map((row) => toJob(row as Selectable<JobsTable>));
  return {
    team: withoutSeq(toTeam(team)),
    existing,
    requestCount: Number(counts[COUNT]),
    chainCounts,
    ...(members === null ? {} : { members: await members }),
  };
}
