// PostgreSQL's admission walks each owner's waiting jobs (decision 0260): on a database with a
// finished history and statistics, in the generic plan its prepared statement settles on, every step of the walk is one seek of the partial
// `jobs_waiting_owner_seq_idx` by its (owner, seq) row, with no scan of `jobs` and no sort; a
// walk cut before its heads gives way to the scan by conversation.
import { JobPhase, TeamStatus } from '@agent-teams/core';
import { type CompiledQuery, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { candidatesReadAhead, readCandidatesAhead } from '../../src/storage/admission-candidates.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';
import { jobRow, loadState, recordingScope, type State } from '../support/candidate-states.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';

/** One node of PostgreSQL's JSON plan. */
interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Index Name'?: string;
  readonly 'Index Cond'?: string;
  readonly Plans?: readonly PlanNode[];
}

function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

/**
 * The generic plan of a compiled query, every node: the plan a named prepared statement settles on
 * (the server prepares the store's statements, `--pg-prepared-statements`), made without the
 * parameters' values (`plan_cache_mode = force_generic_plan`).
 */
async function genericPlanOf(url: string, compiled: CompiledQuery): Promise<PlanNode[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('set plan_cache_mode = force_generic_plan');
    await client.query(`prepare walk as ${compiled.sql}`);
    const values = compiled.parameters.map((value) => client.escapeLiteral(String(value))).join(', ');
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      `explain (format json) execute walk(${values})`,
    );
    const [top] = rows[0]?.['QUERY PLAN'] ?? [];
    if (top === undefined) throw new Error('no plan');
    return nodesOf(top.Plan);
  } finally {
    await client.end();
  }
}

/** Five owners, each with a team, 200 finished jobs and a backlog of 20 queued over 4 conversations. */
function backlog(): State {
  const owners = ['o1', 'o2', 'o3', 'o4', 'o5'];
  let seq = 0;
  // Each round gives every owner one job of `phase`, in conversation i % 4 of its team.
  const rounds = (count: number, prefix: string, phase: JobPhase) =>
    Array.from({ length: count }, (_, i) =>
      owners.map((owner, o) => {
        seq += 1;
        return jobRow({
          id: `${prefix}${o}_${i}`,
          teamId: `t${o}`,
          owner,
          conversationId: `c${o}_${i % 4}`,
          phase,
          seq,
        });
      }),
    ).flat();
  const jobs = [...rounds(200, 'f', JobPhase.COMPLETED), ...rounds(20, 'q', JobPhase.QUEUED)];
  return {
    teams: owners.map((owner, o) => ({ id: `t${o}`, owner, status: TeamStatus.READY })),
    jobs,
    events: [],
    perOwner: 2,
  };
}

const BLOCKED: State = {
  teams: [{ id: 't', owner: 'o', status: TeamStatus.READY }],
  jobs: [
    jobRow({ id: 'j1', teamId: 't', owner: 'o', conversationId: 'a', phase: JobPhase.WAITING_INPUT, seq: 1 }),
    jobRow({ id: 'j2', teamId: 't', owner: 'o', conversationId: 'a', phase: JobPhase.QUEUED, seq: 2 }),
    jobRow({ id: 'j3', teamId: 't', owner: 'o', conversationId: 'a', phase: JobPhase.QUEUED, seq: 3 }),
    jobRow({ id: 'j4', teamId: 't', owner: 'o', conversationId: 'b', phase: JobPhase.QUEUED, seq: 4 }),
  ],
  events: [],
  perOwner: 1,
};

describe('PostgreSQL reads its candidates by owner (decision 0260)', () => {
  let fresh: FreshPostgres;
  let opened: OpenedDatabase;
  beforeAll(async () => {
    fresh = await createFreshPostgres('agent_teams_pg_owner_walk', { migrate: true });
    opened = await openDatabase(fresh.url, { poolSize: 2 });
  });
  afterAll(async () => {
    await opened?.close();
    await fresh?.drop();
  });

  it('seeks each step in the waiting jobs index by (owner, seq): no scan of jobs, no sort', async () => {
    const state = backlog();
    await loadState(opened, state);
    await sql`analyze`.execute(opened.db);
    const { scope, seen } = recordingScope(opened);
    const candidates = await candidatesReadAhead(scope, readCandidatesAhead(scope, 2), 2);
    // Each owner's two oldest queued jobs: heads of two conversations.
    expect(candidates.map((c) => c.jobId)).toEqual([
      'q0_0',
      'q1_0',
      'q2_0',
      'q3_0',
      'q4_0',
      'q0_1',
      'q1_1',
      'q2_1',
      'q3_1',
      'q4_1',
    ]);
    expect(seen).toHaveLength(1);
    const nodes = await genericPlanOf(fresh.url, seen[0] as CompiledQuery);
    const steps = nodes.filter((node) => node['Index Name'] === 'jobs_waiting_owner_seq_idx');
    expect(steps.length).toBeGreaterThanOrEqual(2);
    expect(steps.filter((node) => /^\(ROW\(owner, seq\) > ROW\(/.test(node['Index Cond'] ?? ''))).not.toEqual([]);
    expect(nodes.filter((node) => node['Relation Name'] === 'jobs' && node['Node Type'] === 'Seq Scan')).toEqual([]);
    expect(nodes.filter((node) => node['Node Type'] === 'Sort')).toEqual([]);
  });

  it('a walk cut before its heads gives way to the scan by conversation', async () => {
    await loadState(opened, BLOCKED);
    const { scope, seen } = recordingScope(opened);
    // Cut at two jobs: it saw only conversation a's queued jobs, held behind j1.
    const candidates = await candidatesReadAhead(scope, readCandidatesAhead(scope, 1, 2), 1);
    expect(candidates.map((c) => c.jobId)).toEqual(['j4']);
    expect(seen.map((query) => query.sql.slice(0, 16))).toEqual(['select "h"."id",', 'with recursive "']);
  });
});
