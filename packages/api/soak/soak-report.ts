import type { LoadFigures } from './soak-load.js';
import type { SubscriberFigures } from './soak-subscribers.js';

/** One memory sample of the server (after a full GC) with the load so far. */
export interface Sample {
  readonly atMs: number;
  readonly rss: number;
  readonly heapUsed: number;
  readonly errors: number;
  readonly operations: number;
  readonly events: number;
}

/** What the soak section is written from. */
export interface SoakReport {
  readonly started: Date;
  readonly minutes: number;
  readonly seed: number;
  readonly cpus: number;
  readonly load: readonly number[];
  readonly figures: LoadFigures;
  readonly seen: SubscriberFigures;
  readonly samples: readonly Sample[];
  readonly serverErrors: number;
  readonly subscriptions: number;
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

/**
 * Growth of `pick` after warm-up: the mean of the last fifth of the samples against the mean of
 * the first fifth after the warm-up (the first quarter of the run), in percent.
 */
export function growth(
  samples: readonly Sample[],
  pick: (sample: Sample) => number,
): {
  from: number;
  to: number;
  percent: number;
} {
  const warm = samples.slice(Math.floor(samples.length / 4));
  const width = Math.max(1, Math.floor(warm.length / 5));
  const from = mean(warm.slice(0, width).map(pick));
  const to = mean(warm.slice(-width).map(pick));
  return { from, to, percent: from === 0 ? 0 : ((to - from) / from) * 100 };
}

/** The soak section of `docs/reliability.md`. */
export function soakSection(report: SoakReport): string {
  const { figures, seen, samples } = report;
  const rss = growth(samples, (s) => s.rss);
  const heap = growth(samples, (s) => s.heapUsed);
  const refusals = Object.entries(figures.expectedRefusals)
    .sort()
    .map(([code, n]) => `${code} ${n}`)
    .join(', ');
  const mark = (percent: number) => (percent <= 10 ? 'within the 10 % goal' : '**over the 10 % goal**');
  return `## Soak: mixed load against a real server

\`pnpm soak\` (\`packages/api/soak/run-soak.ts\`), run of ${report.started.toISOString()} for **${report.minutes} minutes**
(\`AGENT_TEAMS_SOAK_MINUTES\`; the goal is 30) on ${report.cpus} CPUs, load average at the end
${report.load.map((n) => n.toFixed(1)).join(' / ')}, seed ${report.seed}. Ten owners create, use and delete teams (requests
that reply, sleep, stream, ask, interrupt, hand off and fail; answers; cancels; reads), while
${report.subscriptions} \`teamEvents\` subscriptions on 100 sockets check every seq arrives without a gap, and five
sockets are closed and reopened (resuming with \`afterSeq\`) every 2 s. Memory is the server
process's, sampled after a full garbage collection; growth compares the last fifth of the samples
with the first fifth after the warm-up (the first quarter of the run).

| Figure | Value |
| --- | --- |
| GraphQL operations / requests sent / answers / cancels | ${figures.operations} / ${figures.requests} / ${figures.answers} / ${figures.cancels} |
| Teams created / deleted | ${figures.teamsCreated} / ${figures.teamsDeleted} |
| Live events received / socket reconnects / resubscriptions | ${seen.events} / ${seen.reconnects} / ${seen.resubscribes} |
| Expected refusals | ${refusals || 'none'} |
| **Errors** (load: 5xx, masked errors, unknown codes, seq gaps, server closes; server: error logs) | **${figures.errors} / ${report.serverErrors}**${figures.errorSamples.length ? `<br>${figures.errorSamples.map((e) => `\`${e.replace(/\|/g, '/')}\``).join('<br>')}` : ''} |
| RSS after warm-up → end | ${mib(rss.from)} → ${mib(rss.to)} (${rss.percent.toFixed(1)} %, ${mark(rss.percent)}) |
| Heap used after warm-up → end | ${mib(heap.from)} → ${mib(heap.to)} (${heap.percent.toFixed(1)} %, ${mark(heap.percent)}) |
| Samples | ${samples.length} |

<details><summary>Samples (minute: RSS, heap, operations so far)</summary>

${samples.map((s) => `- ${(s.atMs / 60_000).toFixed(1)}: ${mib(s.rss)}, ${mib(s.heapUsed)}, ${s.operations}`).join('\n')}

</details>
`;
}
