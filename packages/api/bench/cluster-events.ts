import { BenchChild } from './harness/bench-child.js';
import { createBenchPostgres } from './harness/bench-postgres.js';
import type { BenchContext, Benchmark, BenchReport } from './harness/benchmark.js';
import { CLUSTER_BENCH_TOKEN } from './harness/cluster-stack.js';
import { ms, type Summary, summarize, waitUntil } from './harness/stats.js';
import { openTeamEventsSocket, type TeamEventsSocket } from './harness/team-events-socket.js';
import { monotonicMs } from './live-clock.js';

const SIZES = {
  full: { requests: 170, warmup: 10, socketsPerServer: 2 },
  tiny: { requests: 12, warmup: 2, socketsPerServer: 1 },
} as const;
/** Requests per team stay below the 100-request limit. */
const PER_TEAM = 90;
const OWNER = 'bench-owner-0';

/** How the servers follow each other's commits. */
interface Feed {
  readonly key: string;
  readonly label: string;
  readonly notify: boolean;
  readonly pollMs: number;
}

const FEEDS: readonly Feed[] = [
  { key: 'notify', label: 'LISTEN/NOTIFY wake-up + 250 ms poll (default)', notify: true, pollMs: 250 },
  { key: 'poll250', label: 'polling only, 250 ms (`notify: false`)', notify: false, pollMs: 250 },
  { key: 'poll50', label: 'polling only, 50 ms (`notify: false`, `--event-poll 50`)', notify: false, pollMs: 50 },
];

interface ServerReport {
  readonly type: string;
  readonly committed: Record<string, number>;
  readonly stats: { polls: number; delivered: number; wakes: number; notifies: number } | null;
  readonly cpuMicros: number;
}

interface FeedResult {
  readonly feed: Feed;
  readonly cross: Summary;
  readonly local: Summary;
  readonly events: number;
  readonly expectedCross: number;
  readonly pollsPerSecond: number;
  readonly notifiesPerSecond: number;
  readonly cpuPercent: number;
  readonly socketErrors: number;
}

const pause = (msToWait: number) => new Promise((resolve) => setTimeout(resolve, msToWait));

/** Two server processes on a fresh database with one feed setting; requests through server A. */
async function measure(ctx: BenchContext, feed: Feed): Promise<FeedResult> {
  const size = SIZES[ctx.scale];
  const postgres = await createBenchPostgres(`events_${feed.key}`);
  const servers = ['a', 'b'].map((name) => BenchChild.fork(`events-${feed.key}/${name}`, 'cluster-server-process.ts'));
  const a = servers[0] as BenchChild;
  const sockets: TeamEventsSocket[] = [];
  try {
    const opened = await Promise.all(
      servers.map((server, i) =>
        server.request<{ type: string; url: string }>(
          {
            type: 'open',
            database: postgres.url,
            serverId: `srv_bench_events_${i + 1}`,
            cluster: { notify: feed.notify, pollMs: feed.pollMs },
            http: true,
          },
          'opened',
          90_000,
        ),
      ),
    );
    const total = size.requests + size.warmup;
    const { teams } = await a.request<{
      type: string;
      teams: { teamId: string; memberIds: string[]; lastEventSeq: number }[];
    }>({ type: 'teams', owner: OWNER, count: Math.ceil(total / PER_TEAM), size: 2 }, 'teams', 60_000);
    for (const server of servers) {
      for (const team of teams) await server.request({ type: 'watch', teamId: team.teamId }, 'watching', 10_000);
    }
    // Receive times by `teamId#seq`, one entry per socket; and which server each socket is on.
    const received = new Map<string, { server: number; at: number }[]>();
    const follow = teams.map((team) => ({ teamId: team.teamId, afterSeq: team.lastEventSeq }));
    for (const [index, server] of opened.entries()) {
      for (let i = 0; i < size.socketsPerServer; i += 1) {
        const wsUrl = `${server.url.replace(/^http/, 'ws')}/graphql`;
        sockets.push(
          openTeamEventsSocket(wsUrl, CLUSTER_BENCH_TOKEN, follow, (teamId, seq, at) => {
            const key = `${teamId}#${seq}`;
            const list = received.get(key) ?? [];
            list.push({ server: index, at });
            received.set(key, list);
          }),
        );
      }
    }
    await Promise.all(sockets.map((socket) => socket.ready));
    await pause(500);
    let windowStart = Number.POSITIVE_INFINITY;
    let before: ServerReport[] = [];
    for (let i = 0; i < total; i += 1) {
      if (i === size.warmup) {
        before = await Promise.all(servers.map((s) => s.request<ServerReport>({ type: 'report' }, 'report', 10_000)));
        windowStart = monotonicMs();
      }
      const team = teams[Math.floor(i / PER_TEAM)] as (typeof teams)[number];
      const memberId = team.memberIds[i % team.memberIds.length] as string;
      await a.request(
        { type: 'send', ref: i, owner: OWNER, teamId: team.teamId, memberIds: [memberId], key: `e-${i}`, text: 'Ping' },
        'sent',
        30_000,
        (answer) => answer.ref === i,
      );
      // 50..150 ms apart at random, so commits do not fall into step with the poll timer.
      await pause(50 + Math.random() * 100);
    }
    // Let the last runs finish and every socket catch up (polling alone may take a full interval).
    await pause(1_000 + feed.pollMs);
    const reportAll = () =>
      Promise.all(servers.map((s) => s.request<ServerReport>({ type: 'report' }, 'report', 10_000)));
    await waitUntil(
      async () => {
        const reports = await reportAll();
        return reports.every((r) =>
          Object.keys(r.committed).every((key) => (received.get(key)?.length ?? 0) >= sockets.length),
        );
      },
      'every socket received every event',
      15_000,
      200,
    ).catch(() => ctx.log(`${feed.key}: some deliveries missing after 15 s; the table shows the shortfall`));
    const windowEnd = monotonicMs();
    const after = await reportAll();
    const cross: number[] = [];
    const local: number[] = [];
    let events = 0;
    after.forEach((report, committer) => {
      for (const [key, at] of Object.entries(report.committed)) {
        if (at < windowStart) continue;
        events += 1;
        for (const delivery of received.get(key) ?? []) {
          (delivery.server === committer ? local : cross).push(delivery.at - at);
        }
      }
    });
    const seconds = (windowEnd - windowStart) / 1000;
    const delta = (pick: (r: ServerReport) => number) =>
      after.reduce((sum, r, i) => sum + pick(r) - pick(before[i] as ServerReport), 0);
    return {
      feed,
      cross: summarize(cross),
      local: summarize(local),
      events,
      expectedCross: events * size.socketsPerServer,
      pollsPerSecond: delta((r) => r.stats?.polls ?? 0) / servers.length / seconds,
      notifiesPerSecond: delta((r) => r.stats?.notifies ?? 0) / servers.length / seconds,
      cpuPercent: delta((r) => r.cpuMicros) / 1e4 / servers.length / seconds,
      socketErrors: sockets.reduce((sum, socket) => sum + socket.errors(), 0),
    };
  } finally {
    for (const socket of sockets) socket.close();
    await Promise.all(servers.map((server) => server.close()));
    await postgres.drop();
  }
}

/**
 * Event latency across servers: a commit through one server process to a graphql-ws `teamEvents`
 * subscriber on another, with LISTEN/NOTIFY wake-ups and with polling alone.
 */
export const clusterEvents: Benchmark = {
  name: 'cluster-events',
  title: 'Live events across servers (commit on one server → subscriber on another)',
  async run(ctx): Promise<BenchReport> {
    const size = SIZES[ctx.scale];
    const results: FeedResult[] = [];
    for (const feed of FEEDS) results.push(await measure(ctx, feed));
    const [notify, poll] = results as [FeedResult, FeedResult];
    return {
      tables: [
        {
          header: [
            'Change feed',
            'Cross-server deliveries',
            'p50',
            'p99',
            'max',
            'same-server p50',
            'same-server p99',
            'polls/s per server',
            'notifies/s per server',
            'server CPU',
          ],
          rows: results.map((r) => [
            r.feed.label,
            `${r.cross.count} / ${r.expectedCross}`,
            ms(r.cross.p50),
            ms(r.cross.p99),
            ms(r.cross.max),
            ms(r.local.p50),
            ms(r.local.p99),
            r.pollsPerSecond.toFixed(1),
            r.notifiesPerSecond.toFixed(1),
            `${r.cpuPercent.toFixed(1)}%`,
          ]),
        },
      ],
      method: [
        `Two server processes (\`cluster-server-process.ts\`: the application \`createApp\` builds for \`serve\`, listening, with our WebSocket server, the scheduler with its lease and the change feed) on a fresh PostgreSQL database per row. ${size.socketsPerServer} graphql-ws socket(s) per server, in the benchmark process, each subscribed to \`teamEvents\` of every team from its current seq.`,
        `${size.requests} requests (after ${size.warmup} untimed) are sent through server A, one at a time, 50–150 ms apart at random (so commits do not fall into step with the poll timer); the scripted runs are instant. Each request commits several events (enqueue, admission, completion), committed by whichever server admitted and ran the job.`,
        'Latency: from just after the COMMIT on the committing server (when its store publishes the events) to the `next` frame read by a socket, both on the machine\'s monotonic clock. "Cross-server" counts deliveries by the other server (its change feed read the event from `team_events` and handed it to its team feeds); "same-server" is the local path on the committing server, for reference.',
        'Polls and notifies: the change feed\'s counters over the timed window, per server. With LISTEN/NOTIFY a poll still runs whenever `pollMs` passes without a wake-up, and each wake-up reads at once. "Server CPU": user + system CPU of the two server processes over the window, as a share of one core, averaged per server.',
        'The three rows run one after the other in one run, each with new processes and a new database.',
      ],
      notes: [
        `NOTIFY vs polling alone at 250 ms: cross-server p50 ${ms(notify.cross.p50)} vs ${ms(poll.cross.p50)}, p99 ${ms(notify.cross.p99)} vs ${ms(poll.cross.p99)}. The notification carries no data (only the sender's server id, sent after COMMIT on a connection of its own and coalesced), so a lost one costs at most one poll interval. Same-server p50 ${ms(notify.local.p50)} with wake-ups vs ${ms(poll.local.p50)} without, server CPU ${notify.cpuPercent.toFixed(1)}% vs ${poll.cpuPercent.toFixed(1)}%: each wake-up also makes the other server run a scheduler pass (see \`cluster-dispatch\`), which competes with the committing server for the planning lock and the cores.`,
      ],
      metrics: {
        notifyP50Ms: notify.cross.p50,
        notifyP99Ms: notify.cross.p99,
        pollP50Ms: poll.cross.p50,
        pollP99Ms: poll.cross.p99,
        crossDeliveries: notify.cross.count,
        expectedCross: notify.expectedCross,
        socketErrors: results.reduce((sum, r) => sum + r.socketErrors, 0),
      },
    };
  },
};
