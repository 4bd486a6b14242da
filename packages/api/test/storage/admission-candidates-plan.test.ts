import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobPhase, TeamStatus } from '@agent-teams/core';
import type { CompiledQuery } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { readCandidates } from '../../src/storage/admission-candidates.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';
import { jobRow, loadState, recordingScope, type State } from '../support/candidate-states.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-candidates-plan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** SQLite's plan of a compiled query, its parameters bound, one detail line per step. */
async function planOf(db: OpenedDatabase['db'], compiled: CompiledQuery): Promise<readonly string[]> {
  const plan = await db.executeQuery<{ detail: string }>({ ...compiled, sql: `explain query plan ${compiled.sql}` });
  return plan.rows.map((row) => row.detail);
}

/** A job of team `t`, owner `o`. */
function job(id: string, conversationId: string, phase: JobPhase, seq: number): State['jobs'][number] {
  return jobRow({ id, teamId: 't', owner: 'o', conversationId, phase, seq });
}

/**
 * One owner: conversation `a` held by a job waiting for a person, two jobs queued behind it, then
 * conversation `b`'s queued head. A walk of two jobs sees only `a`'s queued jobs, not heads.
 */
const BLOCKED: State = {
  teams: [{ id: 't', owner: 'o', status: TeamStatus.READY }],
  jobs: [
    job('j1', 'a', JobPhase.WAITING_INPUT, 1),
    job('j2', 'a', JobPhase.QUEUED, 2),
    job('j3', 'a', JobPhase.QUEUED, 3),
    job('j4', 'b', JobPhase.QUEUED, 4),
  ],
  events: [],
  perOwner: 1,
};

/** A migrated database with `state` loaded, and the recursive statements `readCandidates` runs on it. */
async function candidatesWith(name: string, state: State, walk?: number) {
  const opened = await openDatabase(join(dir, `${name}.sqlite`));
  await migrateToLatest(opened.db, opened.dialect);
  await loadState(opened, state);
  const { scope, seen } = recordingScope(opened);
  const candidates = await readCandidates(scope, state.perOwner, walk);
  return { opened, seen, candidates };
}

describe('admission reads its candidates by owner, and by conversation when a walk is cut (decision 0249)', () => {
  it('SQLite walks each owner in the waiting jobs index and scans no jobs', async () => {
    const { opened, seen, candidates } = await candidatesWith('walk', BLOCKED);
    try {
      expect(candidates.map((c) => c.jobId)).toEqual(['j4']);
      // The walk alone: it saw all three waiting jobs, within its default bound.
      expect(seen.map((query) => query.sql.slice(0, 24))).toEqual(['with recursive "r"("owne']);
      const details = await planOf(opened.db, seen[0] as CompiledQuery);
      // The owners: a loose scan of the index, one seek each (the first is its first entry).
      expect(details).toContainEqual('SEARCH w USING INDEX jobs_waiting_owner_seq_idx (owner>?)');
      // Each owner's waiting jobs in seq order up to its bound, each one's conversation checked by a seek.
      expect(details).toContainEqual('SEARCH w USING INDEX jobs_waiting_owner_seq_idx (owner=? AND seq<?)');
      expect(details).toContainEqual(
        'SEARCH e USING COVERING INDEX jobs_unfinished_conversation_seq_idx (conversation_id=? AND seq<?)',
      );
      expect(details).toContainEqual(expect.stringMatching(/SEARCH j USING INTEGER PRIMARY KEY/));
      expect(details.filter((detail) => /^SCAN (jobs|j|w|e)\b/.test(detail))).toEqual([
        'SCAN w USING INDEX jobs_waiting_owner_seq_idx',
      ]);
      // No sort, and nothing searched by an index SQLite builds for the statement.
      expect(details.filter((detail) => /AUTOMATIC|BLOOM|TEMP B-TREE/.test(detail))).toEqual([]);
    } finally {
      await opened.close();
    }
  });

  it('a walk cut before its heads gives way to the scan by conversation, one seek per conversation', async () => {
    const { opened, seen, candidates } = await candidatesWith('cut', BLOCKED, 2);
    try {
      // The walk stopped at j3 with no head; the scan found b's.
      expect(candidates.map((c) => c.jobId)).toEqual(['j4']);
      expect(seen).toHaveLength(2);
      const details = await planOf(opened.db, seen[1] as CompiledQuery);
      expect(details).toContainEqual(
        expect.stringMatching(
          /SEARCH n USING (COVERING )?INDEX jobs_unfinished_conversation_seq_idx \(conversation_id>\?\)/,
        ),
      );
      expect(details).toContainEqual(expect.stringMatching(/SEARCH j USING INTEGER PRIMARY KEY/));
      expect(details.filter((detail) => /^SCAN (jobs|j|h|n)\b/.test(detail))).toEqual([
        'SCAN n USING COVERING INDEX jobs_unfinished_conversation_seq_idx',
      ]);
      expect(details.filter((detail) => /AUTOMATIC|BLOOM/.test(detail))).toEqual([]);
    } finally {
      await opened.close();
    }
  });

  it('a walk cut after it found its heads is the answer: no scan', async () => {
    const state: State = { ...BLOCKED, jobs: [job('j0', 'c', JobPhase.QUEUED, 0), ...BLOCKED.jobs] };
    const { opened, seen, candidates } = await candidatesWith('enough', state, 1);
    try {
      expect(candidates.map((c) => c.jobId)).toEqual(['j0']);
      expect(seen).toHaveLength(1);
    } finally {
      await opened.close();
    }
  });
});
