import { join } from 'node:path';
import { asOwnerId } from '@agent-teams/core';
import { openCountingDatabase } from './harness/commit-counter.js';
import { rawCommitRate } from './harness/raw-commit-rate.js';
import { openTurnClient } from './harness/turn-client.js';
import { openTurnStack } from './harness/turn-stack.js';

/** The commit profile of one turn: commits by what they wrote, per turn, and the raw commit time. */
export interface TurnCommitProfile {
  readonly turns: number;
  readonly rows: string[][];
  readonly commitsPerTurn: number;
  readonly readsPerTurn: number;
  readonly writesPerTurn: number;
  /** Milliseconds of one raw single-row commit on the same disk, measured right after. */
  readonly rawCommitMs: number;
}

/**
 * Runs `turns` sequential turns on a connection that counts every COMMIT (labelled by the tables
 * its transaction wrote) and every autocommit write, then measures the raw commit time: the
 * load-independent part of the turn's cost.
 */
export async function profileTurnCommits(dir: string, turns: number): Promise<TurnCommitProfile> {
  const database = openCountingDatabase(join(dir, 'turn-commits.sqlite'));
  const stack = await openTurnStack(database, new Map([['turn-count-token', 'turn-count-owner']]));
  try {
    await stack.app.start();
    const team = await stack.team(asOwnerId('turn-count-owner'));
    const client = openTurnClient(stack.url, 'turn-count-token', [team.teamId]);
    await client.ready;
    const turn = async (i: number) => {
      const member = team.members[i % 2];
      if (!member) throw new Error('[agent-teams/bench] team without members');
      const jobId = await client.send(team.teamId, member.id, `Count ${i}`, `turn-count-${i}-${turns}`);
      await client.seen(jobId, 'COMPLETED');
    };
    await turn(1);
    await stack.app.scheduler?.idle();
    database.reset();
    for (let i = 0; i < turns; i += 1) await turn(i + 2);
    await stack.app.scheduler?.idle();
    client.close();
  } finally {
    await stack.close();
  }
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
    commitsPerTurn: all / turns,
    readsPerTurn: counts.selects / turns,
    writesPerTurn: counts.writes / turns,
    rawCommitMs: 1000 / raw.perSecond,
  };
}
