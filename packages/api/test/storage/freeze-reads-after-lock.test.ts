// PostgreSQL: a pass's freeze reads what its team lock's previous holder committed (decision 0250,
// corrected). The freeze's reads (the mailbox, the roster, the newest records) go in a statement
// of their own right behind the locking one: at READ COMMITTED a statement reads as of its start,
// so reads inside a locking statement that waited for the lock would miss the holder's commit.
import { asOwnerId, JobPhase } from '@agent-teams/core';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../scheduler/scheduler-harness.js';
import { holdPlanningLock, recordedPostgresAppPerFile, teamOfTwo } from '../support/recorded-postgres-app.js';

const ALICE = asOwnerId('alice');
const MARK = 'Committed by the lock holder while the pass waited';

const recorded = recordedPostgresAppPerFile('agent_teams_reads_after_lock', 'srv_reads_after_lock');

describe('a pass’s freeze on PostgreSQL, its team lock held elsewhere', () => {
  it('reads the records the lock’s holder committed while it waited', async () => {
    const { app, db } = recorded();
    const { team, memberIds } = await teamOfTwo(app, ALICE, 'after-lock');
    const planning = await holdPlanningLock(db.url);
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      // Queued without its ride; the pass its events wake waits for the planning lock.
      const [job] = await app.core.requests.send(ALICE, {
        teamId: team.id,
        memberIds: [memberIds[0]],
        text: 'Instant answer',
        clientRequestId: 'r-after-lock',
      });
      if (job === undefined) throw new Error('nothing enqueued');
      // The team's row held elsewhere, then the planning lock let go: the pass waits for the team.
      await holder.query('BEGIN');
      await holder.query('select id from teams where id = $1 for update', [team.id]);
      await planning.query('COMMIT');
      await waitFor(async () => {
        const { rows } = await holder.query(
          "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
        );
        return (rows[0] as { n: number }).n > 0;
      }, 'the pass waits for the team’s lock');
      // A record the holder appends (a copy of the request's record, every column but its seq).
      const { rows: columns } = await holder.query(
        "select column_name from information_schema.columns where table_name = 'record_messages' and column_name not in ('seq', 'id', 'text')",
      );
      const names = columns.map((row) => `"${(row as { column_name: string }).column_name}"`).join(', ');
      await holder.query(
        `insert into record_messages (id, text, ${names}) select 'rec_after_lock', $2, ${names} from record_messages where team_id = $1 limit 1`,
        [team.id, MARK],
      );
      await holder.query('COMMIT');
      await waitFor(async () => (await app.store.findJobs([job.id]))[0]?.phase === JobPhase.COMPLETED, 'done');
      const [frozen] = await app.store.findJobs([job.id]);
      expect(JSON.stringify(frozen?.input ?? null)).toContain(MARK);
    } finally {
      await planning.end();
      await holder.end();
    }
  });
});
