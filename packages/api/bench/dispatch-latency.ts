import { join } from 'node:path';
import { isTerminal, type JobId } from '@agent-teams/core';
import { openDatabase } from '../src/storage/open-database.js';
import { benchOwner, openBenchStack } from './harness/bench-stack.js';
import type { Benchmark, BenchReport } from './harness/benchmark.js';
import { latencyCells, summarize, waitUntil } from './harness/stats.js';

const SIZES = { full: { samples: 300, warmup: 20 }, tiny: { samples: 5, warmup: 1 } } as const;
/** Requests per team stay below the 100-request limit. */
const PER_TEAM = 90;

/**
 * Dispatch latency: from `sendRequest` accepted (the core's `requests.send` resolved, so the job
 * is committed) to the scripted runtime's `start` being entered, with a free slot.
 */
export const dispatchLatency: Benchmark = {
  name: 'dispatch-latency',
  title: 'Dispatch latency (request accepted → run started, free slot)',
  async run(ctx): Promise<BenchReport> {
    const { samples, warmup } = SIZES[ctx.scale];
    const starts = new Map<JobId, number>();
    const stack = await openBenchStack(await openDatabase(join(ctx.dir, 'dispatch.sqlite')), {
      onStart: (jobId, at) => {
        if (!starts.has(jobId)) starts.set(jobId, at);
      },
    });
    try {
      await stack.scheduler.start();
      const owner = benchOwner(0);
      const total = samples + warmup;
      const teams = await stack.teams(owner, Math.ceil(total / PER_TEAM), 2);
      const fromAccepted: number[] = [];
      const fromCalled: number[] = [];
      for (let i = 0; i < total; i += 1) {
        const target = teams[i % teams.length] as (typeof teams)[number];
        const member = target.members[Math.floor(i / teams.length) % target.members.length];
        if (!member) throw new Error('[agent-teams/bench] team without members');
        const called = performance.now();
        const [job] = await stack.core.requests.send(owner, {
          teamId: target.team.id,
          memberIds: [member.id],
          text: 'Ping',
          clientRequestId: `dispatch-${i}`,
        });
        const accepted = performance.now();
        if (!job) throw new Error('[agent-teams/bench] send returned no job');
        const started = await waitUntil(() => starts.get(job.id), `run start of ${job.id}`, 10_000, 1);
        // The next sample starts with the slot and the conversation free again.
        await waitUntil(
          async () => {
            const [current] = await stack.store.findJobs([job.id]);
            return current !== undefined && isTerminal(current.phase);
          },
          `job ${job.id} finished`,
          10_000,
          2,
        );
        if (i < warmup) continue;
        fromAccepted.push(started - accepted);
        fromCalled.push(started - called);
      }
      const a = summarize(fromAccepted);
      const c = summarize(fromCalled);
      const row = (label: string, s: typeof a) => [label, ...latencyCells(s)];
      return {
        tables: [
          {
            header: ['Interval', 'Samples', 'p50', 'p90', 'p99', 'max', 'mean'],
            rows: [
              row('`requests.send` resolved → runtime `start` entered', a),
              row('`requests.send` called → runtime `start` entered', c),
            ],
          },
        ],
        method: [
          `${samples} sequential samples after ${warmup} warm-up samples that are not counted; one request to one member each, over ${teams.length} teams of 2 members (one owner), so every request finds a free slot and an idle conversation.`,
          'A sample waits until its job is finished (polling the job every 2 ms) before the next request is sent, so nothing else runs while it is measured.',
          'The first row starts when the core `requests.send` promise resolves (the job and its event are committed) and stops when the scheduler enters the runtime `start` (a wrapper around the scripted runtime records `performance.now()`); the second row also includes the enqueue transaction itself.',
          'In between: the store event wakes the scheduler (setImmediate), one admission transaction (`BEGIN IMMEDIATE`, planning reads, freeze, COMMIT with fsync), the active-job read and the advancement step up to `start`.',
        ],
        metrics: { samples: a.count, p50Ms: a.p50, p99Ms: a.p99, maxMs: a.max },
      };
    } finally {
      await stack.close();
    }
  },
};
