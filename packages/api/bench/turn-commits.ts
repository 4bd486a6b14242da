import { join } from 'node:path';
import { asOwnerId } from '@agent-teams/core';
import { type OpenedDatabase, openDatabase } from '../src/storage/open-database.js';
import { openCountingDatabase } from './harness/commit-counter.js';
import { rawCommitRate } from './harness/raw-commit-rate.js';
import { statementRows } from './harness/statement-times.js';
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
}

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
    client.close();
    return (cpu.user + cpu.system) / 1000;
  } finally {
    await stack.close();
  }
}

/**
 * Runs `turns` sequential turns twice: on `openDatabase` (production statement cache and pragmas)
 * for the CPU they take, then on a connection that counts every COMMIT (labelled by the tables its
 * transaction wrote) and every autocommit write; then measures the raw commit time.
 */
export async function profileTurnCommits(dir: string, turns: number): Promise<TurnCommitProfile> {
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
  return {
    turns,
    rows,
    statements: statementRows(counts.statements, turns, 60),
    commitsPerTurn: all / turns,
    readsPerTurn: counts.selects / turns,
    writesPerTurn: counts.writes / turns,
    cpuMsPerTurn: cpuMs / turns,
    rawCommitMs: 1000 / raw.perSecond,
  };
}
