import type { Benchmark, BenchReport } from './harness/benchmark.js';
import { ms } from './harness/stats.js';
import { descriptorLimit, INTERVAL_MS, type PhaseResult, phase, SIZES } from './token-relay-phase.js';

/** The issue's goals for p99: active subscribers alone, and with the idle ones beside them. */
const GOALS = { active: 15, idle: 50 } as const;

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
    const results = [
      await phase(ctx, 'active', 0),
      await phase(ctx, 'floor', 0, 'floor'),
      await phase(ctx, 'idle', size.idle),
    ];
    const [first, floor, second] = results as [PhaseResult, PhaseResult, PhaseResult];
    const name = (r: PhaseResult) =>
      r.relay === 'floor'
        ? `${r.active} active, bare relay (floor)`
        : r.idle > 0
          ? `${r.active} active + ${r.idle} idle`
          : `${r.active} active`;
    const goal = (r: PhaseResult) => (r.relay === 'floor' ? '–' : `≤ ${r.idle > 0 ? GOALS.idle : GOALS.active} ms`);
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
            goal(r),
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
        {
          title: `The machine while the turns streamed (${ctx.machine.cpuCount} cores, shared with other work)`,
          header: [
            'Subscribers',
            'stream (release → last delivery)',
            'cores busy, all processes',
            'cores used by server + clients + provider',
            'cores stolen by the hypervisor',
            'server GC pauses: count, total, longest',
          ],
          rows: results.map((r) => [
            name(r),
            ms(r.streamMs),
            r.machine.busy.toFixed(2),
            r.machine.ours.toFixed(2),
            r.machine.steal.toFixed(2),
            `${r.gc.count}, ${ms(r.gc.totalMs)}, ${ms(r.gc.maxMs)}`,
          ]),
        },
      ],
      method: [
        `The server process runs the application as \`serve\` builds it (\`createApp\`, SQLite file, default runtimes, HTTP and graphql-ws on 127.0.0.1) with one agent on the \`openai\` runtime (\`stream: true\`). Its provider is the one fake part: an OpenAI-compatible server on loopback in the benchmark's own process (\`harness/streaming-chat-provider.ts\`, testkit's wire format over real HTTP SSE), apart from the server so a stall of the server's event loop shows up as latency instead of delaying the provider's clock too.`,
        `${size.turns} turns (one request each, to the first member of ${size.turns} two-member teams of one owner) run concurrently; each model call gets its headers at once, then the provider holds it until every subscriber is set up, and streams the ${size.turns} answers together: ${size.chunks} content deltas each, one every ${INTERVAL_MS} ms (50 tokens/s per turn, ${(size.turns * 1000) / INTERVAL_MS} deltas/s in all), the answers staggered over one interval. Each delta's text is \`<stream>.<index>@<send time>\`, stamped just before its \`write\`.`,
        `Subscribers: ${size.perJob} WebSocket clients per running job (${size.turns * size.perJob} sockets, one subscription each) in a separate process subscribe to \`jobProgress(jobId)\` with the widget's own document (\`textDelta toolCall\`). \`jobProgress\` is what carries text deltas: \`teamEvents\` carries committed events only (a job's status, the answer once it is recorded), nothing per token. A subscriber is set up once the server's progress hub counts its listener.`,
        `Latency: from the provider's send stamp to the \`next\` frame read by each subscriber, on the machine's monotonic clock (\`process.hrtime\`, CLOCK_MONOTONIC, one clock for every process: \`live-clock.ts\`), matched by the delta's text, which the subscriber reads from the frame's bytes. The first ${size.warmup} deltas of every answer are delivered but not counted (JIT warm-up). Every subscriber must receive each delta of its job once, in order: the deliveries column counts them, the run fails its smoke test otherwise.`,
        `Floor (the middle row, between the two phases of the application): the same provider, model calls, clients, subscriptions and measurement against a bare relay in a process of its own (\`token-relay-floor-process.ts\`): \`ws\` on \`node:http\`, the model calls read with \`fetch\`, and each content delta written as one prebuilt graphql-transport-ws \`next\` frame, one shared buffer, to the TCP socket of every subscriber of its call (one \`write\` per delivery, as the application's frame writer does), with no GraphQL, database, authorization or per-subscriber queue. It is what this machine allows a Node relay that makes one write per delivery; the application's rows are read against it.`,
        `Deltas relayed: text notices the runtimes published to the server's progress hub while the turns streamed (one per provider chunk). Server CPU (\`process.cpuUsage\` of the server process, user+system) covers from just before the release until every subscriber had its last delta, including the turns' own work (SSE parsing, the answers' commits); it is divided by the relayed deltas and by the deliveries. Event-loop delay: \`monitorEventLoopDelay\` (1 ms resolution) over the same window, in both processes.`,
        `Second phase, a fresh server process: the same turns and active subscribers plus ${size.idle} idle sockets of the same owner on ${size.idleTeams} quiet teams: half follow a team's \`teamEvents\` from its last event (one replayed event, then nothing), half the \`jobProgress\` of a job waiting for a person's answer (its model asked, \`ask_clarification\`: unfinished, and nothing ever; until the thirty-fourth pass a finished job's, whose \`jobProgress\` now ends at once). Idle sockets must receive nothing during the run. RSS per idle socket: server RSS after the idle sockets were set up minus before, after a full GC each, divided by the idle sockets (noisy: RSS moves in pages); heap = V8 heap used + external memory at the same points.`,
        'The machine table: `/proc/stat` read when the provider starts streaming and once every subscriber had its last delta: cores busy machine-wide against the CPU of the three processes of this benchmark (server, clients, and the benchmark process that runs the provider); the difference is other work on the shared machine. GC pauses: a `PerformanceObserver` on `gc` in the server over the same window. `TOKEN_RELAY_CPU_PROF=<dir>` runs the server process with `--cpu-prof` (one profile per phase, for the analysis below; under `pnpm bench` its frames name the chunks of the bundle, whose source maps lie beside them in `packages/api/bench-bundle/`).',
        `File descriptors: each process holds one per socket (${size.turns * size.perJob + size.idle} in the second phase); \`ulimit -n\` was ${limit} here, so they fit without raising it.`,
      ],
      notes: [
        `Worst latency in each second of the stream (by send time; a stall shows as a peak, a server that cannot keep up as a climb): ${results.map((r) => `${name(r)}: ${r.worstBySecond.map((worst) => worst.toFixed(0)).join(', ')} ms`).join('; ')}.`,
        `Floor: the bare relay's server used ${perItem(floor.serverCpuMicros, floor.deliveries)} of CPU per delivery against the application's ${perItem(first.serverCpuMicros, first.deliveries)}; its subscribers saw p50 ${ms(floor.latency.p50)} and p99 ${ms(floor.latency.p99)} against ${ms(first.latency.p50)} and ${ms(first.latency.p99)}.`,
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
        floorP50Ms: floor.latency.p50,
        floorP99Ms: floor.latency.p99,
        floorRelayed: floor.relayed,
        floorSent: floor.sent,
        floorDeliveries: floor.deliveries,
        floorExpected: floor.expected,
        floorMinPerSocket: floor.minPerSocket,
        floorCpuMicrosPerDelivery: floor.serverCpuMicros / Math.max(1, floor.deliveries),
        chunks: size.chunks,
        errors: first.errors + floor.errors + second.errors,
        unexpectedIdleDeliveries: first.idleDeliveries + second.idleDeliveries,
        serverCpuMicrosPerDelta: first.serverCpuMicros / Math.max(1, first.relayed),
        serverCpuMicrosPerDelivery: first.serverCpuMicros / Math.max(1, first.deliveries),
        rssKiBPerIdleSocket: second.rssPerIdleSocket / 1024,
      },
    };
  },
};
