import { join } from 'node:path';
import { isTerminal, type JobId } from '@agent-teams/core';
import { openDatabase } from '../src/storage/open-database.js';
import { benchOwner, openBenchStack } from './harness/bench-stack.js';
import type { Benchmark, BenchReport } from './harness/benchmark.js';
import { latencyCells, summarize, waitUntil } from './harness/stats.js';

/** Kept short: `pnpm bench` runs it in well under a minute on 2 cores. */
const SIZES = { full: { samples: 200, warmup: 10 }, tiny: { samples: 5, warmup: 1 } } as const;

/**
 * Message latency: from a follow-up `sendMessage` accepted (the core's `messages.send` resolved:
 * the message and its MESSAGE job committed) to the scripted runtime's `start` entered for the
 * recipient's turn, the recipient idle and a slot free.
 */
export const messageLatency: Benchmark = {
  name: 'message-latency',
  title: 'Message latency (follow-up accepted → recipient turn started, idle recipient)',
  async run(ctx): Promise<BenchReport> {
    const { samples, warmup } = SIZES[ctx.scale];
    const starts: { readonly jobId: JobId; readonly at: number }[] = [];
    const stack = await openBenchStack(await openDatabase(join(ctx.dir, 'messages.sqlite')), {
      onStart: (jobId, at) => starts.push({ jobId, at }),
    });
    try {
      await stack.scheduler.start();
      const owner = benchOwner(0);
      const [target] = await stack.teams(owner, 1, 2);
      if (target === undefined) throw new Error('[agent-teams/bench] no team');
      const fromAccepted: number[] = [];
      for (let i = 0; i < samples + warmup; i += 1) {
        const member = target.members[i % target.members.length];
        if (!member) throw new Error('[agent-teams/bench] team without members');
        const seen = starts.length;
        await stack.core.messages.send(owner, {
          teamId: target.team.id,
          memberIds: [member.id],
          text: `note ${i}`,
          delivery: 'FOLLOW_UP',
          clientRequestId: `message-${i}`,
        });
        const accepted = performance.now();
        const started = await waitUntil(() => starts[seen], `turn start after message ${i}`, 10_000, 1);
        // The next sample starts with the slot free and the recipient idle again.
        await waitUntil(
          async () => {
            const [job] = await stack.store.findJobs([started.jobId]);
            return job !== undefined && isTerminal(job.phase);
          },
          `turn ${started.jobId} finished`,
          10_000,
          2,
        );
        if (i >= warmup) fromAccepted.push(started.at - accepted);
      }
      const stats = summarize(fromAccepted);
      return {
        tables: [
          {
            header: ['Interval', 'Samples', 'p50', 'p90', 'p99', 'max', 'mean'],
            rows: [['`messages.send` (follow-up) resolved → recipient turn `start` entered', ...latencyCells(stats)]],
          },
        ],
        method: [
          `${samples} sequential samples after ${warmup} warm-up samples that are not counted; one follow-up message to one member of a team of 2 (SQLite file), alternating members, so every message finds its recipient idle with no turn queued and a slot free.`,
          'A sample waits until the turn it started is finished (polling every 2 ms) before the next message is sent.',
          'The interval starts when the core `messages.send` promise resolves (message, deliveries and the MESSAGE job committed) and stops when the scheduler enters the scripted runtime `start` for that turn: the store event wakes the scheduler, one admission transaction freezes the turn with the mailbox and marks the message delivered, then the advancement step calls `start`.',
        ],
        metrics: { samples: stats.count, p50Ms: stats.p50, p99Ms: stats.p99, maxMs: stats.max },
      };
    } finally {
      await stack.close();
    }
  },
};
