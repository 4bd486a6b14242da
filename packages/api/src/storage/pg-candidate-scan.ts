import { TeamStatus } from '@agent-teams/core';
import { type Expression, type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { WalkPart } from './admission-owner-walk.js';
import { wokenJobs } from './change-waits.js';
import type { Database } from './database-types.js';
import { UNFINISHED } from './job-reads.js';
import { SLOT_WAITING_PHASE_LITERALS } from './literal-phase.js';

/** The columns of a head the PostgreSQL scan carries from step to step. */
const HEAD_COLUMNS = ['id', 'owner', 'team_id', 'conversation_id', 'seq', 'phase'] as const;

/**
 * PostgreSQL's form of SQLite's scan (`sqliteCandidates`, `admission-candidates.ts`): the same
 * loose scan, but each step carries the whole head (`LATERAL … ORDER BY conversation_id, seq LIMIT 1`, one index scan of the partial
 * index per conversation), so no head is looked up again; the team's status by its key.
 *
 * @remarks Decision 0228. Measured on the engine benchmark's drain, sampled every 0.7 s: the form
 * before it (a `min(conversation_id)` scan, then each head by `min(seq)` through a hash join over
 * every queued job, then the teams by a nested loop) took 5–13 ms a pass; this one 1.1–2.2 ms.
 * SQLite's form (each step carries the head's key, then a join back to `jobs` by `seq`) let
 * PostgreSQL hash every queued job to find the heads again (decision 0226).
 */
export function postgresCandidates(db: Kysely<Database>, now: string, perOwner: number) {
  // The first unfinished job past a conversation (or the first of all): the next conversation's head.
  const headAfter = (eb: Pick<ExpressionBuilder<Database, never>, 'selectFrom'>, after: Expression<string> | null) => {
    let next = eb.selectFrom('jobs').select(HEAD_COLUMNS).where('unfinished', '=', UNFINISHED);
    if (after !== null) next = next.where('conversation_id', '>', after);
    return next.orderBy('conversation_id').orderBy('seq').limit(1);
  };
  const heads = db
    .withRecursive('c(id, owner, team_id, conversation_id, seq, phase)', (db) =>
      db
        .selectFrom((eb) => headAfter(eb, null).as('h'))
        .select(['h.id', 'h.owner', 'h.team_id', 'h.conversation_id', 'h.seq', 'h.phase'])
        .unionAll((eb) =>
          eb
            .selectFrom('c')
            .crossJoinLateral((lateral) => headAfter(lateral, sql.ref<string>('c.conversation_id')).as('n'))
            .select(['n.id', 'n.owner', 'n.team_id', 'n.conversation_id', 'n.seq', 'n.phase']),
        ),
    )
    .with('w', (db) =>
      db
        .selectFrom('c')
        .select((eb) => [
          'c.id',
          'c.owner',
          'c.team_id',
          'c.conversation_id',
          'c.seq',
          eb.fn
            .agg<number>('row_number')
            .over((ob) => ob.partitionBy('c.owner').orderBy('c.seq'))
            .as('rank'),
        ])
        .where('c.phase', 'in', SLOT_WAITING_PHASE_LITERALS)
        // By the team's key for each head: a join let the planner loop over every team per head.
        .where((eb) => eb.selectFrom('teams as t').select('t.status').whereRef('t.id', '=', 'c.team_id'), 'in', [
          TeamStatus.READY,
          TeamStatus.CLOSED,
        ]),
    )
    .selectFrom('w')
    .select(['w.id', 'w.owner', 'w.team_id', 'w.conversation_id', 'w.seq', sql.lit<string>(WalkPart.HEAD).as('part')])
    .where('w.rank', '<=', perOwner);
  // Each row says what it is (`WalkPart`, as the walk by owner's rows): a read asked ahead keeps
  // each owner's first heads (`trimCandidates`) and every woken wait.
  return heads.unionAll(wokenJobs(db, now).select(sql.lit<string>(WalkPart.WOKEN).as('part')));
}
