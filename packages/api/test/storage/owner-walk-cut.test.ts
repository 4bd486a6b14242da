// A walk by owner is cut only when the owner has more jobs waiting than the walk looked at: an
// owner with exactly `walk` waiting jobs was walked to its end, and naming it cut cost a needless
// scan by conversation and SCAN_READS_AFTER_A_BAD_WALK more (decisions 0249 and 0260).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobPhase, TeamStatus } from '@agent-teams/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOwnerWalk, WalkPart } from '../../src/storage/admission-owner-walk.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';
import { readPostgresOwnerWalk } from '../../src/storage/pg-owner-walk.js';
import { jobRow, loadState, NOW, recordingScope, type State } from '../support/candidate-states.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';

/** How many jobs the walks below look at per owner. */
const WALK = 4;

/**
 * Owner `o`: a member's running turn with `queued` requests waiting behind it (none a head), then
 * one other owner `p` with a head, so the walk goes on past `o`.
 */
function queuedBehind(queued: number): State {
  const job = (id: string, owner: string, conversationId: string, phase: JobPhase, seq: number) =>
    jobRow({ id, teamId: `t_${owner}`, owner, conversationId, phase, seq });
  return {
    teams: ['o', 'p'].map((owner) => ({ id: `t_${owner}`, owner, status: TeamStatus.READY })),
    jobs: [
      job('r', 'o', 'busy', JobPhase.RUNNING, 1),
      ...Array.from({ length: queued }, (_, i) => job(`q${i}`, 'o', 'busy', JobPhase.QUEUED, i + 2)),
      job('h', 'p', 'free', JobPhase.QUEUED, 100),
    ],
    events: [],
    perOwner: 2,
  };
}

/** What one walk of `state` returns, per owner: its heads' ids and whether it was named cut. */
type Walked = Record<string, { heads: string[]; cut: boolean }>;

function byOwner(rows: readonly { part: string; owner: string; id: string | null }[]): Walked {
  const walked: Walked = {};
  for (const row of rows) {
    if (row.part === WalkPart.WOKEN) continue;
    walked[row.owner] ??= { heads: [], cut: false };
    const entry = walked[row.owner] as Walked[string];
    if (row.part === WalkPart.CUT) entry.cut = true;
    else entry.heads.push(row.id as string);
  }
  return walked;
}

describe.each([
  ['SQLite', 'sqlite'],
  ['PostgreSQL', 'postgres'],
] as const)('a walk by owner on %s', (_name, engine) => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-teams-walk-cut-'));
  let fresh: FreshPostgres | undefined;
  let opened: OpenedDatabase;
  beforeAll(async () => {
    if (engine === 'postgres') {
      fresh = await createFreshPostgres('agent_teams_walk_cut', { migrate: true });
      opened = await openDatabase(fresh.url, { poolSize: 2 });
    } else {
      opened = await openDatabase(join(dir, 'walk.sqlite'));
      await migrateToLatest(opened.db, opened.dialect);
    }
  });
  afterAll(async () => {
    await opened?.close();
    await fresh?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function walk(state: State): Promise<Walked> {
    await loadState(opened, state);
    const { scope } = recordingScope(opened);
    const rows =
      engine === 'sqlite'
        ? await readOwnerWalk(scope, state.perOwner, WALK)
        : await readPostgresOwnerWalk(scope.trx, NOW, state.perOwner, WALK);
    return byOwner(rows as { part: string; owner: string; id: string | null }[]);
  }

  it('does not name cut an owner whose waiting jobs it looked at all, one fewer than its bound or exactly as many', async () => {
    for (const queued of [WALK - 1, WALK]) {
      expect(await walk(queuedBehind(queued))).toEqual({ p: { heads: ['h'], cut: false } });
    }
  });

  it('names cut an owner with one job waiting past its bound, and keeps walking the next owner', async () => {
    expect(await walk(queuedBehind(WALK + 1))).toEqual({
      o: { heads: [], cut: true },
      p: { heads: ['h'], cut: false },
    });
  });

  it('keeps the heads it finds before its bound, whatever waits past it', async () => {
    const state = queuedBehind(WALK + 3);
    const heads = Array.from({ length: 2 }, (_, i) =>
      jobRow({
        id: `f${i}`,
        teamId: 't_o',
        owner: 'o',
        conversationId: `free${i}`,
        phase: JobPhase.QUEUED,
        seq: i + 2,
      }),
    );
    // The two heads come first in the owner's queue: seq 2 and 3, the queued requests after them.
    const jobs = state.jobs.map((job) =>
      job.owner === 'o' && job.phase === JobPhase.QUEUED ? { ...job, seq: job.seq + 2 } : job,
    );
    const walked = await walk({ ...state, jobs: [...jobs, ...heads] });
    // Whether it is named cut then does not matter: the caller scans only for an owner cut short
    // of its heads (`cutShort`).
    expect(walked.o?.heads).toEqual(['f0', 'f1']);
    expect(walked.p).toEqual({ heads: ['h'], cut: false });
  });
});
