import { join } from 'node:path';
import { isTerminal, type JobId, JobPhase } from '@agent-teams/core';
import { openDatabase } from '../src/storage/open-database.js';
import { benchOwner, openBenchStack } from './harness/bench-stack.js';
import type { Benchmark, BenchReport } from './harness/benchmark.js';
import { latencyCells, summarize, waitUntil } from './harness/stats.js';

/** Kept short: `pnpm bench` runs it in well under a minute on 2 cores. */
const SIZES = { full: { samples: 100, warmup: 5 }, tiny: { samples: 3, warmup: 1 } } as const;

/**
 * Woken-wait latency: from a change committed in the team (a request to another member accepted)
 * to the scripted runtime's `resume` entered for the member paused in `wait_for_change`.
 */
export const waitLatency: Benchmark = {
  name: 'wait-latency',
  title: 'Woken wait latency (team change accepted → waiting turn resumed)',
  async run(ctx): Promise<BenchReport> {
    const { samples, warmup } = SIZES[ctx.scale];
    const resumes: { readonly jobId: JobId; readonly at: number }[] = [];
    const stack = await openBenchStack(await openDatabase(join(ctx.dir, 'waits.sqlite')), {
      onResume: (jobId, at) => resumes.push({ jobId, at }),
    });
    try {
      await stack.scheduler.start();
      const owner = benchOwner(0);
      // Two requests per sample; a team holds 100 requests, so a fresh team every 45 samples.
      const PER_TEAM = 45;
      const teams = await stack.teams(owner, Math.ceil((samples + warmup) / PER_TEAM), 2);
      const phase = async (id: JobId) => (await stack.store.findJobs([id]))[0]?.phase;
      const send = async (teamId: string, memberId: string, text: string, key: string) => {
        const [job] = await stack.core.requests.send(owner, {
          teamId,
          memberIds: [memberId],
          text,
          clientRequestId: key,
        });
        if (job === undefined) throw new Error('[agent-teams/bench] no job');
        return job.id;
      };
      const fromChange: number[] = [];
      for (let i = 0; i < samples + warmup; i += 1) {
        const target = teams[Math.floor(i / PER_TEAM)];
        const [waiter, other] = target?.members ?? [];
        if (target === undefined || waiter === undefined || other === undefined)
          throw new Error('[agent-teams/bench] no team');
        const waiting = await send(target.team.id, waiter.id, '!wait 600000\n!reply woken', `wait-${i}`);
        await waitUntil(
          async () => (await phase(waiting)) === JobPhase.WAITING_CHANGE || undefined,
          `wait ${i} parked`,
          10_000,
          1,
        );
        const seen = resumes.length;
        const change = await send(target.team.id, other.id, `change ${i}`, `change-${i}`);
        const accepted = performance.now();
        const resumed = await waitUntil(
          () => resumes.slice(seen).find((r) => r.jobId === waiting),
          `wait ${i} resumed`,
          10_000,
          1,
        );
        // The next sample starts with both members idle and the slots free.
        await waitUntil(
          async () =>
            (isTerminal((await phase(waiting)) ?? JobPhase.QUEUED) &&
              isTerminal((await phase(change)) ?? JobPhase.QUEUED)) ||
            undefined,
          `sample ${i} finished`,
          10_000,
          2,
        );
        if (i >= warmup) fromChange.push(resumed.at - accepted);
      }
      const stats = summarize(fromChange);
      return {
        tables: [
          {
            header: ['Interval', 'Samples', 'p50', 'p90', 'p99', 'max', 'mean'],
            rows: [
              ['`requests.send` to another member resolved → waiting turn `resume` entered', ...latencyCells(stats)],
            ],
          },
        ],
        method: [
          `${samples} sequential samples after ${warmup} warm-up samples that are not counted; teams of 2 (SQLite file, a fresh team every 45 samples): member A runs \`!wait 600000\` and is WAITING_CHANGE, then the owner sends member B a request.`,
          'The interval starts when the core `requests.send` promise for B resolves (the job and its events committed) and stops when the scheduler enters the scripted runtime `resume` for A: the commit wakes the scheduler, one admission transaction finds A woken (an event after its seq), reads the changes and moves it to RESUMING with the result, then the advancement step calls `resume`.',
          'A sample waits until both turns finished (polling every 2 ms) before the next one.',
        ],
        metrics: { samples: stats.count, p50Ms: stats.p50, p99Ms: stats.p99, maxMs: stats.max },
      };
    } finally {
      await stack.close();
    }
  },
};
