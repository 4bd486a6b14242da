import { type Kysely, sql } from 'kysely';
import type { Database } from '../../src/storage/database-types.js';

/** Records of one team kept by retention (the newest 100). */
export const RECORDS_PER_TEAM = 100;

/** A frozen input of realistic size (about 1.5 KB), as finished rows carry it. */
const INPUT_JSON = JSON.stringify({
  kind: 'request',
  text: 'Seeded request: summarise the sources and list open questions',
  memberName: 'm0',
  receipt: null,
  goal: 'Measure the engine',
  members: [
    { name: 'm0', title: 'researcher', description: 'Find and check source evidence' },
    { name: 'm1', title: 'reviewer', description: 'Independent quality review' },
  ],
  recentRecords: Array.from({ length: 8 }, (_, i) => ({ kind: 'COMPLETED', text: `Earlier answer ${i} `.repeat(8) })),
});

/** The columns of a `jobs` row as the store writes them (`jobInsertRow`/`jobStateColumns`). */
const JOB_COLUMNS = sql.raw(
  [
    'id',
    'team_id',
    'owner',
    'kind',
    'phase',
    'unfinished',
    'member_id',
    'conversation_id',
    'requester_member_id',
    'requester_conversation_id',
    'requester_key',
    'parent_id',
    'root_id',
    'client_key',
    'text',
    'input_json',
    'run_key',
    'run_id',
    'pending_input_json',
    'pending_response_json',
    'result_text',
    'result_truncated',
    'error',
    'created_at',
    'started_at',
    'finished_at',
    'updated_at',
  ].join(', '),
);

/** ISO-8601 text of `offset` seconds after the seed epoch, in SQL. */
const at = (offset: string) =>
  sql.raw(`strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01T00:00:00Z', '+' || (${offset}) || ' seconds')`);

/**
 * Inserts `count` QUEUED jobs in one statement: job i goes to team i mod T (teams in creation
 * order, so owners rotate) and to member (i div T) mod 2.
 */
export async function seedQueued(db: Kysely<Database>, count: number): Promise<void> {
  await sql`
    with recursive q(i) as (select 0 union all select i + 1 from q where i + 1 < ${count}),
      tt as (select id, owner, row_number() over (order by seq) - 1 as ti, count(*) over () as tn from teams)
    insert into jobs (${JOB_COLUMNS})
    select 'job_queued_' || q.i, tt.id, tt.owner, 'REQUEST', 'QUEUED', 1, m.id, m.conversation_id, null, null, '',
      null, 'job_queued_' || q.i, 'queued-' || q.i, 'Queued request ' || q.i, null, null, null, null, null, null,
      null, null, ${at('1000000 + q.i')}, null, null, ${at('1000000 + q.i')}
    from q join tt on tt.ti = q.i % tt.tn join members m on m.team_id = tt.id and m.position = (q.i / tt.tn) % 2
    order by q.i`.execute(db);
}

/**
 * Inserts `perTeam` COMPLETED jobs for every team in one statement (alternating members, each
 * with the frozen input and a result), and a COMPLETED record message for the newest 100 of
 * each team (record retention keeps 100).
 */
export async function seedFinished(db: Kysely<Database>, perTeam: number): Promise<void> {
  await sql`
    with recursive n(k) as (select 0 union all select k + 1 from n where k + 1 < ${perTeam})
    insert into jobs (${JOB_COLUMNS})
    select 'job_done_' || t.seq || '_' || n.k, t.id, t.owner, 'REQUEST', 'COMPLETED', 0, m.id, m.conversation_id,
      null, null, '', null, 'job_done_' || t.seq || '_' || n.k, 'done-' || n.k, 'Seeded request ' || n.k,
      ${INPUT_JSON}, 'job_done_' || t.seq || '_' || n.k, 'run_job_done_' || t.seq || '_' || n.k, null, null,
      m.name || ': Seeded request ' || n.k || ' answered with a short summary of the sources.', 0, null,
      ${at('n.k')}, ${at('n.k')}, ${at('n.k + 1')}, ${at('n.k + 1')}
    from n join teams t join members m on m.team_id = t.id and m.position = n.k % 2
    order by n.k, t.seq`.execute(db);
  await sql`
    insert into record_messages (id, team_id, kind, job_id, member_id, from_member_id, text, truncated, created_at)
    select 'record_' || j.id, j.team_id, 'COMPLETED', j.id, j.member_id, null, j.result_text, 0, j.finished_at
    from jobs j
    where j.unfinished = 0 and j.id like 'job_done_%'
      and cast(substr(j.client_key, 6) as integer) >= ${perTeam - RECORDS_PER_TEAM}
    order by j.seq`.execute(db);
}
