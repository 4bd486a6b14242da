import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobPhase, TeamStatus } from '@agent-teams/core';
import { afterAll, describe, expect, it } from 'vitest';
import { HEADS_PER_OWNER_TO_WALK, OWNERS_TO_SCAN, readCandidates } from '../../src/storage/admission-candidates.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { bruteForce, jobRow, loadState, recordingScope, type State } from '../support/candidate-states.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-read-shape-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `owners` owners, each with `conversations` conversations of one queued job, perOwner 9. */
function backlog(owners: number, conversations: number): State {
  const teams = Array.from({ length: owners }, (_, o) => ({ id: `t${o}`, owner: `o${o}`, status: TeamStatus.READY }));
  const jobs = teams.flatMap((team, o) =>
    Array.from({ length: conversations }, (_, c) =>
      jobRow({
        id: `j${o}_${c}`,
        teamId: team.id,
        owner: team.owner,
        conversationId: `c${o}_${c}`,
        phase: JobPhase.QUEUED,
        seq: 1 + c * owners + o,
      }),
    ),
  );
  return { teams, jobs, events: [], perOwner: 9 };
}

describe("SQLite's candidate read follows the backlog's shape (decision 0249)", () => {
  it('scans by conversation after a read of many owners with one head each, and walks again once owners have several', async () => {
    const opened = await openDatabase(join(dir, 'shape.sqlite'));
    try {
      await migrateToLatest(opened.db, opened.dialect);
      const { scope, seen } = recordingScope(opened);
      const read = async (state: State, perOwner = state.perOwner) => {
        expect(await readCandidates(scope, perOwner)).toEqual(bruteForce({ ...state, perOwner }));
        return seen.splice(0).map((query) => (query.sql.startsWith('with recursive "r"') ? 'walk' : 'scan'));
      };
      // Many owners, one head each: walked once, then scanned.
      const wide = backlog(OWNERS_TO_SCAN, 1);
      await loadState(opened, wide);
      expect(await read(wide)).toEqual(['walk']);
      expect(await read(wide)).toEqual(['scan']);
      expect(await read(wide)).toEqual(['scan']);
      // One owner fewer: walked again.
      const narrower = backlog(OWNERS_TO_SCAN - 1, 1);
      await loadState(opened, narrower);
      expect(await read(narrower)).toEqual(['scan']);
      expect(await read(narrower)).toEqual(['walk']);
      // As many owners, each with enough heads: the scan's own answer sends the next read back to the walk.
      await loadState(opened, wide);
      expect(await read(wide)).toEqual(['walk']);
      expect(await read(wide)).toEqual(['scan']);
      const deep = backlog(OWNERS_TO_SCAN, HEADS_PER_OWNER_TO_WALK);
      await loadState(opened, deep);
      // Every slot taken (one head per owner asked for): the read cannot tell, and changes nothing.
      expect(await read(deep, 1)).toEqual(['scan']);
      expect(await read(deep, 1)).toEqual(['scan']);
      expect(await read(deep)).toEqual(['scan']);
      expect(await read(deep)).toEqual(['walk']);
      expect(await read(deep, 1)).toEqual(['walk']);
      expect(await read(deep)).toEqual(['walk']);
    } finally {
      await opened.close();
    }
  });
});
