// Differential test of the admission's candidate read (`readCandidates`): on a real SQLite file and
// a real PostgreSQL database, many seeded random job sets are inserted as raw rows and the
// statement's answer is compared with a brute-force JavaScript computation over the same rows:
// each conversation's head (its unfinished job of least seq), kept when QUEUED or ANSWERED in a
// READY or CLOSED team, each owner's `perOwner` oldest of those, plus every woken wait. On SQLite
// each state is read with walks by owner of 1, 2 and 3 jobs too, so that walks cut short and give
// way to the scan by conversation (decision 0249), beside the default walk. On PostgreSQL each is
// also read ahead with more heads per owner than asked and trimmed (decision 0256), walked by owner
// with walks cut at 1, 2 and 3 jobs (decision 0260).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { candidatesReadAhead, readCandidates, readCandidatesAhead } from '../../src/storage/admission-candidates.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';
import { forgetPostgresReads, notePostgresRead, postgresWalks } from '../../src/storage/pg-owner-walk.js';
import { WriteScope } from '../../src/storage/write-transaction.js';
import { bruteForce, loadState, NOW, randomState } from '../support/candidate-states.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';

/** Random states per engine. */
const STATES = 60;

/** Runs every random state on the database; the first mismatch fails with its seed and rows. */
async function checkStates(database: OpenedDatabase, seedBase: number): Promise<void> {
  const scope = new WriteScope(database.db, { db: database.db, dialect: database.dialect, sink: null, ids: null }, NOW);
  let candidates = 0;
  for (let i = 0; i < STATES; i += 1) {
    const seed = seedBase + i;
    const state = randomState(seed);
    await loadState(database, state);
    const expected = bruteForce(state);
    for (const walk of database.dialect === 'sqlite' ? [undefined, 1, 2, 3] : [undefined]) {
      const actual = await readCandidates(scope, state.perOwner, walk);
      expect(actual, `seed ${seed}, walk ${walk}: ${JSON.stringify(state)}`).toEqual(expected);
    }
    // PostgreSQL's read asked ahead with more heads per owner, then trimmed (decision 0256): walked
    // by owner (decision 0260) by default and cut at 1, 2 or 3 jobs (cut walks give way to the scan),
    // and scanned by conversation when the backlog's shape says so.
    for (const more of database.dialect === 'postgres' ? [0, 1, 4, 9] : []) {
      for (const walk of ['scan', undefined, 1, 2, 3] as const) {
        // Each read from a known shape: the scan, or the walk (default or cut at 1, 2, 3 jobs).
        if (walk === 'scan') notePostgresRead(scope, true);
        else forgetPostgresReads(scope);
        expect(postgresWalks(scope)).toBe(walk !== 'scan');
        const ahead = readCandidatesAhead(scope, state.perOwner + more, walk === 'scan' ? undefined : walk);
        const trimmed = await candidatesReadAhead(scope, ahead, state.perOwner);
        expect(trimmed, `seed ${seed}, ahead by ${more}, walk ${walk}: ${JSON.stringify(state)}`).toEqual(expected);
      }
    }
    candidates += expected.length;
  }
  // The states are not degenerate: they offered candidates.
  expect(candidates).toBeGreaterThan(STATES);
}

describe('readCandidates agrees with a brute-force reading of random job sets', () => {
  let dir: string;
  let pg: FreshPostgres;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-teams-candidates-diff-'));
    pg = await createFreshPostgres('agent_teams_candidates_diff');
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await pg?.drop();
  });

  it('on SQLite', async () => {
    const database = await openDatabase(join(dir, 'candidates.sqlite'));
    try {
      await migrateToLatest(database.db, database.dialect);
      await checkStates(database, 1_000);
    } finally {
      await database.close();
    }
  });

  it('on PostgreSQL', async () => {
    const database = await openDatabase(pg.url, { poolSize: 2 });
    try {
      await checkStates(database, 2_000);
    } finally {
      await database.close();
    }
  });
});
