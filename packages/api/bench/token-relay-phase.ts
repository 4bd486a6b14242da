import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { BenchChild } from './harness/bench-child.js';
import type { BenchContext } from './harness/benchmark.js';
import { coresBetween, readCpuTicks } from './harness/cpu-ticks.js';
import { ms, type Summary, waitUntil } from './harness/stats.js';
import { startStreamingChatProvider } from './harness/streaming-chat-provider.js';
import type { LoopDelay } from './live-clock.js';

/** Per phase: turns, active subscribers per job, idle subscribers, deltas per answer (warm-up included). */
export const SIZES = {
  full: { turns: 8, perJob: 125, idle: 10_000, idleTeams: 10, chunks: 525, warmup: 25 },
  tiny: { turns: 2, perJob: 10, idle: 200, idleTeams: 4, chunks: 12, warmup: 2 },
} as const;
/** 50 tokens per second per turn. */
export const INTERVAL_MS = 20;

/** What one phase of the `token-relay` benchmark measured (see `token-relay.ts` for the method). */
export interface PhaseResult {
  readonly label: string;
  /** The application's relay, or the bare floor relay (`token-relay-floor-process.ts`). */
  readonly relay: 'app' | 'floor';
  readonly active: number;
  readonly idle: number;
  readonly latency: Summary;
  readonly relayed: number;
  readonly sent: number;
  readonly deliveries: number;
  readonly expected: number;
  readonly minPerSocket: number;
  readonly errors: number;
  readonly idleDeliveries: number;
  readonly serverCpuMicros: number;
  readonly serverLoopDelay: LoopDelay;
  readonly clientCpuMicros: number;
  readonly clientLoopDelay: LoopDelay;
  readonly rssPerIdleSocket: number;
  readonly heapPerIdleSocket: number;
  /** Wall time from the release until every subscriber had every delta. */
  readonly streamMs: number;
  /** Cores busy machine-wide, and those used by this benchmark's three processes, over that time. */
  readonly machine: { busy: number; steal: number; ours: number };
  readonly gc: { count: number; totalMs: number; maxMs: number };
  readonly worstBySecond: number[];
}

type Opened = {
  type: 'opened';
  url: string;
  token: string;
  activeJobs: string[];
  idleJobs: string[];
  idleTeams: { teamId: string; afterSeq: number }[];
};
type Memory = { type: 'memory'; rss: number; heap: number };
type ClientReport = {
  type: 'report';
  latency: Summary;
  deliveries: number;
  minPerSocket: number;
  errors: number;
  idleDeliveries: number;
  worstBySecond: number[];
  cpuMicros: number;
  loopDelay: LoopDelay;
};

/** The file-descriptor limit the children inherit (`ulimit -n` of a shell started like them). */
export function descriptorLimit(): number {
  const text = execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim();
  return text === 'unlimited' ? Number.POSITIVE_INFINITY : Number(text);
}

/** Waits until the server counts `listeners` progress listeners (every `jobProgress` set up). */
async function progressListeners(server: BenchChild, listeners: number): Promise<void> {
  await waitUntil(
    async () =>
      (await server.request<{ type: 'counted'; progressListeners: number }>({ type: 'count' }, 'counted', 60_000))
        .progressListeners >= listeners,
    `${listeners} progress listeners`,
    120_000,
    20,
  );
}

/**
 * One phase of `token-relay`: a fresh server process, a clients process and the provider in this
 * process; `idle` sockets join the active ones before the turns stream.
 */
export async function phase(
  ctx: BenchContext,
  label: string,
  idle: number,
  relay: 'app' | 'floor' = 'app',
): Promise<PhaseResult> {
  if (relay === 'floor' && idle > 0) throw new Error('[agent-teams/bench] the floor relay has no idle phase');
  const size = SIZES[ctx.scale];
  const active = size.turns * size.perJob;
  const provider = await startStreamingChatProvider();
  // TOKEN_RELAY_CPU_PROF=<dir> profiles the server process (one .cpuprofile per phase).
  const profile = process.env.TOKEN_RELAY_CPU_PROF;
  const server = BenchChild.fork(
    relay === 'app' ? 'relay server' : 'floor relay',
    relay === 'app' ? 'token-relay-server-process.ts' : 'token-relay-floor-process.ts',
    profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [],
  );
  const clients = BenchChild.fork('relay clients', 'token-relay-clients-process.ts');
  try {
    const opened = await server.request<Opened>(
      {
        type: 'open',
        database: join(ctx.dir, `relay-${label}.sqlite`),
        providerUrl: provider.baseUrl,
        turns: size.turns,
        idleTeams: idle > 0 ? size.idleTeams : 0,
        maxSubscriptions: active + idle + 100,
      },
      'opened',
      180_000,
    );
    // Every turn is RUNNING with its model call open: the provider holds the answers.
    await waitUntil(() => provider.held === size.turns, 'every model call to reach the provider', 60_000, 10);
    const base = (
      await server.request<{ type: 'counted'; progressListeners: number }>({ type: 'count' }, 'counted', 60_000)
    ).progressListeners;
    const url = `${opened.url.replace('http', 'ws')}/graphql`;
    await clients.request(
      { type: 'open', url, token: opened.token, active: { jobIds: opened.activeJobs, perJob: size.perJob } },
      'opened',
      300_000,
    );
    await progressListeners(server, base + active);
    ctx.log(`token-relay/${label}: ${active} active subscribers`);
    let rssPerIdleSocket = Number.NaN;
    let heapPerIdleSocket = Number.NaN;
    if (idle > 0) {
      const before = await server.request<Memory>({ type: 'memory' }, 'memory', 60_000);
      const idleSpec = { teams: opened.idleTeams, jobIds: opened.idleJobs, count: idle };
      await clients.request({ type: 'open', url, token: opened.token, idle: idleSpec }, 'opened', 600_000);
      // Odd idle sockets follow a finished job's progress (see the clients process).
      await progressListeners(server, base + active + Math.floor(idle / 2));
      const after = await server.request<Memory>({ type: 'memory' }, 'memory', 60_000);
      rssPerIdleSocket = (after.rss - before.rss) / idle;
      heapPerIdleSocket = (after.heap - before.heap) / idle;
      ctx.log(`token-relay/${label}: ${idle} idle subscribers`);
    }
    await server.request({ type: 'measure' }, 'measuring', 60_000);
    await clients.request({ type: 'measure', chunks: size.chunks, warmup: size.warmup }, 'measuring', 60_000);
    const ticks = readCpuTicks();
    const providerCpu = process.cpuUsage();
    const released = performance.now();
    const { sent } = await provider.release({ chunks: size.chunks, intervalMs: INTERVAL_MS });
    // Until every active subscriber has every delta (or 60 s more: then the table shows the shortfall).
    const waitStart = performance.now();
    await waitUntil(
      async () => {
        const counted = await clients.request<{ type: 'counted'; complete: number }>(
          { type: 'count' },
          'counted',
          60_000,
        );
        return counted.complete >= active || performance.now() - waitStart > 60_000;
      },
      `token-relay/${label}: every delta delivered`,
      180_000,
      20,
    );
    const streamMs = performance.now() - released;
    const busy = coresBetween(ticks, readCpuTicks(), ctx.machine.cpuCount);
    const provided = process.cpuUsage(providerCpu);
    const measured = await server.request<{
      type: 'measured';
      cpuMicros: number;
      relayed: number;
      loopDelay: LoopDelay;
      gc: PhaseResult['gc'];
    }>({ type: 'measured' }, 'measured', 60_000);
    const report = await clients.request<ClientReport>({ type: 'report' }, 'report', 60_000);
    const oursMicros = measured.cpuMicros + report.cpuMicros + provided.user + provided.system;
    ctx.log(
      `token-relay/${label}: p50 ${ms(report.latency.p50)} p99 ${ms(report.latency.p99)} max ${ms(report.latency.max)}; ${report.deliveries} deliveries`,
    );
    return {
      label,
      relay,
      active,
      idle,
      latency: report.latency,
      relayed: measured.relayed,
      sent,
      deliveries: report.deliveries,
      expected: sent * size.perJob,
      minPerSocket: report.minPerSocket,
      errors: report.errors,
      idleDeliveries: report.idleDeliveries,
      serverCpuMicros: measured.cpuMicros,
      serverLoopDelay: measured.loopDelay,
      clientCpuMicros: report.cpuMicros,
      clientLoopDelay: report.loopDelay,
      rssPerIdleSocket,
      heapPerIdleSocket,
      streamMs,
      machine: { ...busy, ours: oursMicros / 1000 / streamMs },
      gc: measured.gc,
      worstBySecond: report.worstBySecond,
    };
  } finally {
    await clients.close();
    await server.close();
    await provider.close();
  }
}
