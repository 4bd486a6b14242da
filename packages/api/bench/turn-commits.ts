import { join } from 'node:path';
import { asOwnerId } from '@agent-teams/core';
import { type OpenedDatabase, openDatabase } from '../src/storage/open-database.js';
import type { BenchTable } from './harness/benchmark.js';
import { openCountingDatabase } from './harness/commit-counter.js';
import { type CommitAfterPause, commitsAfterPause, rawCommitRate } from './harness/raw-commit-rate.js';
import { statementRows } from './harness/statement-times.js';
import { ms } from './harness/stats.js';
import { openTurnClient } from './harness/turn-client.js';
import { openTurnStack } from './harness/turn-stack.js';

/** The load-independent cost of one turn: commits by what they wrote, statements and CPU. */
export interface TurnCommitProfile {
  readonly turns: number;
  readonly rows: string[][];
  /** The turn's statements by time (`statement-times.ts`), the costliest first. */
  readonly statements: string[][];
  readonly commitsPerTurn: number;
  readonly readsPerTurn: number;
  readonly writesPerTurn: number;
  /** Process CPU (server, provider and client in one process) per turn, in milliseconds. */
  readonly cpuMsPerTurn: number;
  /** Milliseconds of one raw single-row commit on the same disk, measured right after. */
  readonly rawCommitMs: number;
  /** Raw commits after the thread slept, of one row and of a turn's COMMIT's size (right after). */
  readonly afterPause: readonly CommitAfterPause[];
}

/** The pauses before a raw commit (ms): back to back, then the waits between a turn's steps. */
export const COMMIT_PAUSES_MS = [0, 1, 3, 10] as const;
/** Tables (so about as many log frames) a turn-sized raw commit writes: the median COMMIT of `log-frames`. */
export const TURN_COMMIT_FRAMES = 19;

/**
 * Runs `turns` sequential turns (one team, members alternating) on `database` after one untimed
 * turn; @returns the process CPU they took, in milliseconds.
 */
async function runTurns(database: OpenedDatabase, turns: number, before: () => void): Promise<number> {
  const stack = await openTurnStack(database, new Map([['turn-count-token', 'turn-count-owner']]));
  try {
    await stack.app.start();
    const team = await stack.team(asOwnerId('turn-count-owner'));
    const client = openTurnClient(stack.url, 'turn-count-token', [team.teamId]);
    try {
      await client.ready;
      const turn = async (i: number) => {
        const member = team.members[i % 2];
        if (!member) throw new Error('[agent-teams/bench] team without members');
        const jobId = await client.send(team.teamId, member.id, `Count ${i}`, `turn-count-${i}`);
        await client.seen(jobId, 'COMPLETED');
      };
      await turn(0);
      await stack.app.scheduler?.idle();
      before();
      const cpuStart = process.cpuUsage();
      for (let i = 1; i <= turns; i += 1) await turn(i);
      await stack.app.scheduler?.idle();
      const cpu = process.cpuUsage(cpuStart);
      return (cpu.user + cpu.system) / 1000;
    } finally {
      client.close();
    }
  } finally {
    await stack.close();
  }
}

/**
 * Runs `turns` sequential turns twice: on `openDatabase` (production statement cache and pragmas)
 * for the CPU they take, then on a connection that counts every COMMIT (labelled by the tables its
 * transaction wrote) and every autocommit write; then measures the raw commit time, back to back
 * and after pauses ({@link commitsAfterPause}, `pauseSamples` per cell).
 */
export async function profileTurnCommits(dir: string, turns: number, pauseSamples: number): Promise<TurnCommitProfile> {
  const cpuMs = await runTurns(await openDatabase(join(dir, 'turn-cpu.sqlite')), turns, () => {});
  const database = openCountingDatabase(join(dir, 'turn-commits.sqlite'));
  await runTurns(database, turns, () => database.reset());
  const counts = database.counts();
  const all = [...counts.commits.values()].reduce((a, b) => a + b, 0);
  const rows = [...counts.commits.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([label, count]) => [`\`${label}\``, String(count), (count / turns).toFixed(2)]);
  rows.push(['**all commits**', String(all), `**${(all / turns).toFixed(2)}**`]);
  const raw = rawCommitRate(join(dir, 'turn-raw.sqlite'), { maxCommits: 2_000, maxMs: 1_000 });
  const afterPause = commitsAfterPause(join(dir, 'turn-pause.sqlite'), {
    pauses: COMMIT_PAUSES_MS,
    frames: TURN_COMMIT_FRAMES,
    samples: pauseSamples,
  });
  return {
    turns,
    rows,
    statements: statementRows(counts.statements, turns, 60),
    commitsPerTurn: all / turns,
    readsPerTurn: counts.selects / turns,
    writesPerTurn: counts.writes / turns,
    cpuMsPerTurn: cpuMs / turns,
    rawCommitMs: 1000 / raw.perSecond,
    afterPause,
  };
}

/** The raw commits after a pause, one row per pause: one row's commit and a turn-sized one. */
export function pauseTable(profile: TurnCommitProfile, samples: number): BenchTable {
  const cell = (pauseMs: number, tables: number) => {
    const found = profile.afterPause.find((c) => c.pauseMs === pauseMs && c.tables === tables);
    return found === undefined ? 'n/a' : `${ms(found.p50Ms)} / ${ms(found.p90Ms)}`;
  };
  return {
    title: `A raw COMMIT after the thread slept (WAL, synchronous=FULL, ${samples} commits per cell, cells taking turns; right after the commit profile)`,
    header: [
      'Pause before the commit',
      'One row, p50 / p90',
      `One row in each of ${TURN_COMMIT_FRAMES} tables (about a turn's COMMIT), p50 / p90`,
    ],
    rows: COMMIT_PAUSES_MS.map((pause) => [
      pause === 0 ? 'none (back to back)' : `${pause} ms`,
      cell(pause, 1),
      cell(pause, TURN_COMMIT_FRAMES),
    ]),
  };
}

/** What the pauses say about a turn's two COMMITs (a sentence of the report's notes). */
export function pauseNote(profile: TurnCommitProfile): string {
  const at = (pauseMs: number) =>
    profile.afterPause.find((c) => c.pauseMs === pauseMs && c.tables === TURN_COMMIT_FRAMES)?.p50Ms ?? Number.NaN;
  return `A turn's COMMITs each follow a wait on the network, and this disk syncs slower after a pause: a turn-sized raw COMMIT took ${ms(at(0))} back to back, ${ms(at(3))} after 3 ms asleep and ${ms(at(10))} after 10 ms (p50). A COMMIT without the sync (\`synchronous=normal\`) costs little more after a pause; the sync's own latency is what grows.`;
}
