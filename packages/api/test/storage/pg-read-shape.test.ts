// PostgreSQL's candidate read follows the backlog's shape (decision 0260): a read that saw many
// owners with one head each, or a walk cut short by a member's deep queue, makes the next
// SCAN_READS_AFTER_A_BAD_WALK reads scan by conversation; then the walk is tried again.
import { JobPhase, TeamStatus } from '@agent-teams/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { candidatesReadAhead, OWNERS_TO_SCAN, readCandidatesAhead } from '../../src/storage/admission-candidates.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';
import { forgetPostgresReads, SCAN_READS_AFTER_A_BAD_WALK } from '../../src/storage/pg-owner-walk.js';
import { bruteForce, jobRow, loadState, recordingScope, type State } from '../support/candidate-states.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';

/** `owners` owners, each with one conversation of one queued job; perOwner 9. */
function wide(owners: number): State {
  const teams = Array.from({ length: owners }, (_, o) => ({ id: `t${o}`, owner: `o${o}`, status: TeamStatus.READY }));
  const jobs = teams.map((team, o) =>
    jobRow({
      id: `j${o}`,
      teamId: team.id,
      owner: team.owner,
      conversationId: `c${o}`,
      phase: JobPhase.QUEUED,
      seq: o + 1,
    }),
  );
  return { teams, jobs, events: [], perOwner: 9 };
}

/** One owner: a member's running turn with 60 requests queued behind it, and one other conversation's head. */
function deepQueue(): State {
  const team = { id: 't', owner: 'o', status: TeamStatus.READY };
  const job = (id: string, conversationId: string, phase: JobPhase, seq: number) =>
    jobRow({ id, teamId: 't', owner: 'o', conversationId, phase, seq });
  const queued = Array.from({ length: 60 }, (_, i) => job(`q${i}`, 'busy', JobPhase.QUEUED, i + 2));
  return {
    teams: [team],
    jobs: [job('r', 'busy', JobPhase.RUNNING, 1), ...queued, job('h', 'free', JobPhase.QUEUED, 99)],
    events: [],
    perOwner: 2,
  };
}

describe("PostgreSQL's candidate read follows the backlog's shape (decision 0260)", () => {
  let fresh: FreshPostgres;
  let opened: OpenedDatabase;
  beforeAll(async () => {
    fresh = await createFreshPostgres('agent_teams_pg_read_shape', { migrate: true });
    opened = await openDatabase(fresh.url, { poolSize: 2 });
  });
  afterAll(async () => {
    await opened?.close();
    await fresh?.drop();
  });

  /** One read as a pass makes it, checked against the brute force; which statements it ran. */
  async function read(state: State): Promise<string[]> {
    const { scope, seen } = recordingScope(opened);
    const ahead = readCandidatesAhead(scope, state.perOwner);
    expect(await candidatesReadAhead(scope, ahead, state.perOwner)).toEqual(bruteForce(state));
    return seen.map((query) => (query.sql.startsWith('select "h"."id"') ? 'walk' : 'scan'));
  }

  it('scans while many owners have one head each, and walks again once the shape is gone', async () => {
    forgetPostgresReads(recordingScope(opened).scope);
    const state = wide(OWNERS_TO_SCAN);
    await loadState(opened, state);
    expect(await read(state)).toEqual(['walk']);
    // Each scan of the same shape keeps the verdict.
    for (let i = 0; i < SCAN_READS_AFTER_A_BAD_WALK + 4; i += 1) expect(await read(state)).toEqual(['scan']);
    // One owner fewer: the scans count down, then the walk serves it, and stays.
    const narrower = wide(OWNERS_TO_SCAN - 1);
    await loadState(opened, narrower);
    for (let i = 0; i < SCAN_READS_AFTER_A_BAD_WALK; i += 1) expect(await read(narrower)).toEqual(['scan']);
    expect(await read(narrower)).toEqual(['walk']);
    expect(await read(narrower)).toEqual(['walk']);
  });

  it('scans after a walk cut short by a deep queue, then walks again', async () => {
    forgetPostgresReads(recordingScope(opened).scope);
    const state = deepQueue();
    await loadState(opened, state);
    // Cut at 34 jobs (2 heads asked + 32), all behind the running turn: the scan finds `h`.
    expect(await read(state)).toEqual(['walk', 'scan']);
    for (let i = 0; i < SCAN_READS_AFTER_A_BAD_WALK; i += 1) expect(await read(state)).toEqual(['scan']);
    expect(await read(state)).toEqual(['walk', 'scan']);
  });
});
