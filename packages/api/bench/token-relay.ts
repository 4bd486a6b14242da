import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { BenchChild } from './harness/bench-child.js';
import type { BenchContext, Benchmark, BenchReport } from './harness/benchmark.js';
import { ms, type Summary, waitUntil } from './harness/stats.js';
import { startStreamingChatProvider } from './harness/streaming-chat-provider.js';
import type { LoopDelay } from './live-clock.js';

/** Per phase: turns, active subscribers per job, idle subscribers, deltas per answer (warm-up included). */
const SIZES = {
  full: { turns: 8, perJob: 125, idle: 10_000, idleTeams: 10, chunks: 525, warmup: 25 },
  tiny: { turns: 2, perJob: 10, idle: 200, idleTeams: 4, chunks: 12, warmup: 2 },
} as const;
/** 50 tokens per second per turn. */
const INTERVAL_MS = 20;
const GOALS = { active: 15, idle: 50 } as const;

interface PhaseResult {
  readonly label: string;
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
  cpuMicros: number;
  loopDelay: LoopDelay;
};

/** The file-descriptor limit the children inherit (`ulimit -n` of a shell started like them). */
function descriptorLimit(): number {
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

/** One phase: a fresh server process, a clients process, the provider in this process. */
async function phase(ctx: BenchContext, label: string, idle: number): Promise<PhaseResult> {
  const size = SIZES[ctx.scale];
  const active = size.turns * size.perJob;
  const provider = await startStreamingChatProvider();
  // TOKEN_RELAY_CPU_PROF=<dir> profiles the server process (one .cpuprofile per phase).
  const profile = process.env.TOKEN_RELAY_CPU_PROF;
  const server = BenchChild.fork(
    'relay server',
    'token-relay-server-process.ts',
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
    const measured = await server.request<{
      type: 'measured';
      cpuMicros: number;
      relayed: number;
      loopDelay: LoopDelay;
    }>({ type: 'measured' }, 'measured', 60_000);
    const report = await clients.request<ClientReport>({ type: 'report' }, 'report', 60_000);
    ctx.log(
      `token-relay/${label}: p50 ${ms(report.latency.p50)} p99 ${ms(report.latency.p99)} max ${ms(report.latency.max)}; ${report.deliveries} deliveries`,
    );
    return {
      label,
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
    };
  } finally {
    await clients.close();
    await server.close();
    await provider.close();
  }
}

const perItem = (micros: number, count: number) => `${(micros / Math.max(1, count)).toFixed(1)} µs`;
const kib = (bytes: number) => (Number.isFinite(bytes) ? `${(bytes / 1024).toFixed(1)} KiB` : '–');

/**
 * `token-relay`: provider chunk → `jobProgress` subscriber latency while turns stream, and the
 * server CPU per relayed delta and per delivery; then the same with idle subscribers beside them.
 */
export const tokenRelay: Benchmark = {
  name: 'token-relay',
  title: 'Token relay (provider chunk → jobProgress subscriber, 8 streaming turns)',
  async run(ctx): Promise<BenchReport> {
    const size = SIZES[ctx.scale];
    const limit = descriptorLimit();
    const needed = size.turns * size.perJob + size.idle + 500;
    if (needed > limit) {
      throw new Error(
        `[agent-teams/bench] token-relay needs ${needed} file descriptors per process; ulimit -n is ${limit}`,
      );
    }
    const results = [await phase(ctx, 'active', 0), await phase(ctx, 'idle', size.idle)];
    const [first, second] = results as [PhaseResult, PhaseResult];
    const name = (r: PhaseResult) => (r.idle > 0 ? `${r.active} active + ${r.idle} idle` : `${r.active} active`);
    const goal = (r: PhaseResult) => (r.idle > 0 ? GOALS.idle : GOALS.active);
    return {
      tables: [
        {
          header: ['Subscribers', 'Deltas relayed / sent', 'Deliveries', 'p50', 'p99', 'max', 'p99 goal'],
          rows: results.map((r) => [
            name(r),
            `${r.relayed} / ${r.sent}`,
            `${r.deliveries} / ${r.expected}`,
            ms(r.latency.p50),
            ms(r.latency.p99),
            ms(r.latency.max),
            `≤ ${goal(r)} ms`,
          ]),
        },
        {
          title: 'Cost while the turns streamed',
          header: [
            'Subscribers',
            'server CPU per relayed delta',
            'server CPU per delivery',
            'server event-loop delay p99 / max',
            'clients CPU per delivery',
            'clients event-loop delay p99 / max',
            'RSS / heap per idle socket',
          ],
          rows: results.map((r) => [
            name(r),
            perItem(r.serverCpuMicros, r.relayed),
            perItem(r.serverCpuMicros, r.deliveries),
            `${ms(r.serverLoopDelay.p99)} / ${ms(r.serverLoopDelay.max)}`,
            perItem(r.clientCpuMicros, r.deliveries),
            `${ms(r.clientLoopDelay.p99)} / ${ms(r.clientLoopDelay.max)}`,
            `${kib(r.rssPerIdleSocket)} / ${kib(r.heapPerIdleSocket)}`,
          ]),
        },
      ],
      method: [
        `The server process runs the application as \`serve\` builds it (\`createApp\`, SQLite file, default runtimes, HTTP and graphql-ws on 127.0.0.1) with one agent on the \`openai\` runtime (\`stream: true\`). Its provider is the one fake part: an OpenAI-compatible server on loopback in the benchmark's own process (\`harness/streaming-chat-provider.ts\`, testkit's wire format over real HTTP SSE), apart from the server so a stall of the server's event loop shows up as latency instead of delaying the provider's clock too.`,
        `${size.turns} turns (one request each, to the first member of ${size.turns} two-member teams of one owner) run concurrently; each model call gets its headers at once, then the provider holds it until every subscriber is set up, and streams the ${size.turns} answers together: ${size.chunks} content deltas each, one every ${INTERVAL_MS} ms (50 tokens/s per turn, ${(size.turns * 1000) / INTERVAL_MS} deltas/s in all), the answers staggered over one interval. Each delta's text is \`<stream>.<index>@<send time>\`, stamped just before its \`write\`.`,
        `Subscribers: ${size.perJob} WebSocket clients per running job (${size.turns * size.perJob} sockets, one subscription each) in a separate process subscribe to \`jobProgress(jobId)\` with the widget's own document (\`textDelta toolCall\`). \`jobProgress\` is what carries text deltas: \`teamEvents\` carries committed events only (a job's status, the answer once it is recorded), nothing per token. A subscriber is set up once the server's progress hub counts its listener.`,
        `Latency: from the provider's send stamp to the \`next\` frame read by each subscriber, on the machine's monotonic clock (\`process.hrtime\`, CLOCK_MONOTONIC, one clock for every process: \`live-clock.ts\`), matched by the delta's text, which the subscriber reads from the frame's bytes. The first ${size.warmup} deltas of every answer are delivered but not counted (JIT warm-up). Every subscriber must receive each delta of its job once, in order: the deliveries column counts them, the run fails its smoke test otherwise.`,
        `Deltas relayed: text notices the runtimes published to the server's progress hub while the turns streamed (one per provider chunk). Server CPU (\`process.cpuUsage\` of the server process, user+system) covers from just before the release until every subscriber had its last delta, including the turns' own work (SSE parsing, the answers' commits); it is divided by the relayed deltas and by the deliveries. Event-loop delay: \`monitorEventLoopDelay\` (1 ms resolution) over the same window, in both processes.`,
        `Second phase, a fresh server process: the same turns and active subscribers plus ${size.idle} idle sockets of the same owner on ${size.idleTeams} quiet teams: half follow a team's \`teamEvents\` from its last event (one replayed event, then nothing), half a finished job's \`jobProgress\` (nothing ever). Idle sockets must receive nothing during the run. RSS per idle socket: server RSS after the idle sockets were set up minus before, after a full GC each, divided by the idle sockets (noisy: RSS moves in pages); heap = V8 heap used + external memory at the same points.`,
        `File descriptors: each process holds one per socket (${size.turns * size.perJob + size.idle} in the second phase); \`ulimit -n\` was ${limit} here, so they fit without raising it.`,
      ],
      notes: [
        `Goals: p99 ≤ ${GOALS.active} ms with ${first.active} subscribers (${ms(first.latency.p99)} measured); p99 ≤ ${GOALS.idle} ms with ${second.idle} idle subscribers beside them (${ms(second.latency.p99)} measured).`,
      ],
      metrics: {
        activeP50Ms: first.latency.p50,
        activeP99Ms: first.latency.p99,
        activeMaxMs: first.latency.max,
        idleP99Ms: second.latency.p99,
        idleMaxMs: second.latency.max,
        activeRelayed: first.relayed,
        activeSent: first.sent,
        activeDeliveries: first.deliveries,
        activeExpected: first.expected,
        activeMinPerSocket: first.minPerSocket,
        idleRelayed: second.relayed,
        idleSent: second.sent,
        idleDeliveries: second.deliveries,
        idleExpected: second.expected,
        idleMinPerSocket: second.minPerSocket,
        chunks: size.chunks,
        errors: first.errors + second.errors,
        unexpectedIdleDeliveries: first.idleDeliveries + second.idleDeliveries,
        serverCpuMicrosPerDelta: first.serverCpuMicros / Math.max(1, first.relayed),
        serverCpuMicrosPerDelivery: first.serverCpuMicros / Math.max(1, first.deliveries),
        rssKiBPerIdleSocket: second.rssPerIdleSocket / 1024,
      },
    };
  },
};
