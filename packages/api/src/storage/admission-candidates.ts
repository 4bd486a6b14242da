import {
  type AdmissionCandidate,
  asConversationId,
  asJobId,
  asOwnerId,
  asTeamId,
  JobPhase,
  TeamStatus,
} from '@agent-teams/core';
import { type Expression, type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { wokenJobs } from './change-waits.js';
import { CompiledStatement } from './compiled-statement.js';
import type { Database } from './database-types.js';
import { UNFINISHED } from './job-reads.js';
import type { WriteScope } from './write-transaction.js';

/**
 * The head job of each conversation with unfinished work, when that head waits for a slot (QUEUED
 * or ANSWERED) and its team is READY (or CLOSED: see `freezeJob`): each owner's oldest `perOwner`
 * of them (`headsPerOwner`); and every woken wait. Reads only unfinished rows (partial indexes),
 * never the finished history.
 */
function sqliteCandidates(db: Kysely<Database>, now: string, perOwner: number) {
  // The head after a conversation: the first entry of the partial (conversation, seq) index past
  // it, so one seek gives the next conversation and its head at once.
  // Built from the expression builder, as any subquery: one built from `db` would go through its
  // plugins as a statement of its own.
  const headAfter = (eb: Pick<ExpressionBuilder<Database, never>, 'selectFrom'>, after: Expression<string> | null) => {
    let next = eb.selectFrom('jobs as n').select('n.seq').where('n.unfinished', '=', UNFINISHED);
    if (after !== null) next = next.where('n.conversation_id', '>', after);
    return next.orderBy('n.conversation_id').orderBy('n.seq').limit(1);
  };
  // A loose scan of the partial index, one seek per conversation: a backlog of thousands of queued
  // jobs costs what its conversations cost (measured with a subquery per queued job and the scan:
  // SQLite, 3,000 queued over 24 conversations, 4.2 → 0.1 ms). Each step carries only the head's
  // key; the rows of the heads past `perOwner` are never handed to JavaScript.
  const heads = db
    .withRecursive('c(conv, seq)', (db) =>
      db
        .selectFrom('jobs')
        .select(['conversation_id as conv', 'seq'])
        .where('seq', '=', (eb) => headAfter(eb, null))
        .unionAll((db) =>
          db
            .selectFrom('c')
            .innerJoin('jobs as j', (join) =>
              join.on((eb) => eb('j.seq', '=', headAfter(eb, sql.ref<string>('c.conv')))),
            )
            .select(['j.conversation_id as conv', 'j.seq']),
        ),
    )
    .with('w', (db) =>
      db
        .selectFrom('c')
        // CROSS JOIN keeps SQLite's join order (each head by its key) whatever its statistics say.
        .crossJoin('jobs as j')
        .whereRef('j.seq', '=', 'c.seq')
        .select((eb) => [
          'j.seq',
          eb.fn
            .agg<number>('row_number')
            .over((ob) => ob.partitionBy('j.owner').orderBy('j.seq'))
            .as('rank'),
        ])
        .where('j.phase', 'in', [JobPhase.QUEUED, JobPhase.ANSWERED])
        // A closed team's late arrivals (a receipt) are admitted only to be cancelled by the freeze.
        .where((eb) => eb.selectFrom('teams as t').select('t.status').whereRef('t.id', '=', 'j.team_id'), 'in', [
          TeamStatus.READY,
          TeamStatus.CLOSED,
        ]),
    )
    .selectFrom('w')
    .crossJoin('jobs as j')
    .whereRef('j.seq', '=', 'w.seq')
    .select(['j.id', 'j.owner', 'j.team_id', 'j.conversation_id', 'j.seq'])
    .where('w.rank', '<=', perOwner);
  // One statement for both kinds.
  return heads.unionAll(wokenJobs(db, now));
}

/**
 * PostgreSQL's form of {@link sqliteCandidates}: the loose scan by `min(conversation_id)` and
 * each head by `min(seq)`, joined to its team, and the same window.
 *
 * @remarks SQLite's form, faster on a settled and analyzed table, halved PostgreSQL's engine
 * drain, where the table changes under it (159 → 85 jobs/s, 4.1 → 9.7 ms of database CPU per
 * job; the plan behind that was not traced). This is the statement PostgreSQL ran before
 * decision 0226, with the window added.
 */
function postgresCandidates(db: Kysely<Database>, now: string, perOwner: number) {
  // Each conversation with unfinished work once (measured with a subquery per queued job and this
  // way: PostgreSQL, 5,000 queued over 60 conversations among 25,000 jobs, 46 → 5 ms).
  const heads = db
    .withRecursive('c(conv)', (db) =>
      db
        .selectFrom('jobs')
        .select((eb) => eb.fn.min<string | null>('conversation_id').as('conv'))
        .where('unfinished', '=', UNFINISHED)
        .unionAll((eb) =>
          eb
            .selectFrom('c')
            .select((inner) =>
              inner
                .selectFrom('jobs')
                .select((next) => next.fn.min('conversation_id').as('conv'))
                .where('unfinished', '=', UNFINISHED)
                .whereRef('conversation_id', '>', 'c.conv')
                .as('conv'),
            )
            .where('c.conv', 'is not', null),
        ),
    )
    .with('w', (db) =>
      db
        .selectFrom('c')
        .innerJoin('jobs as j', (join) =>
          join.on((eb) =>
            eb(
              'j.seq',
              '=',
              eb
                .selectFrom('jobs as h')
                .select((inner) => inner.fn.min('h.seq').as('head'))
                .where('h.unfinished', '=', UNFINISHED)
                .whereRef('h.conversation_id', '=', 'c.conv'),
            ),
          ),
        )
        .innerJoin('teams as t', 't.id', 'j.team_id')
        .select((eb) => [
          'j.id',
          'j.owner',
          'j.team_id',
          'j.conversation_id',
          'j.seq',
          eb.fn
            .agg<number>('row_number')
            .over((ob) => ob.partitionBy('j.owner').orderBy('j.seq'))
            .as('rank'),
        ])
        // Always true of a head, but it lets PostgreSQL, which may join by hashing, read only the
        // unfinished jobs (their partial index) instead of every job ever run.
        .where('j.unfinished', '=', UNFINISHED)
        .where('j.phase', 'in', [JobPhase.QUEUED, JobPhase.ANSWERED])
        .where('t.status', 'in', [TeamStatus.READY, TeamStatus.CLOSED]),
    )
    .selectFrom('w')
    .select(['w.id', 'w.owner', 'w.team_id', 'w.conversation_id', 'w.seq'])
    .where('w.rank', '<=', perOwner);
  return heads.unionAll(wokenJobs(db, now));
}

/** Each dialect's statement, compiled once (`compiled-statement.ts`): its building cost more than its run. */
const CANDIDATES = {
  sqlite: new CompiledStatement(2, sqliteCandidates),
  postgres: new CompiledStatement(2, postgresCandidates),
};

/** The admission's candidates (see {@link sqliteCandidates}), in queue order. */
export async function readCandidates(scope: WriteScope, perOwner: number): Promise<AdmissionCandidate[]> {
  const rows = await CANDIDATES[scope.dialect].rows(scope.trx, scope.now, perOwner);
  return rows
    .sort((a, b) => Number(a.seq) - Number(b.seq))
    .map((row) => ({
      jobId: asJobId(row.id),
      owner: asOwnerId(row.owner),
      teamId: asTeamId(row.team_id),
      conversationId: asConversationId(row.conversation_id),
      seq: Number(row.seq),
    }));
}
