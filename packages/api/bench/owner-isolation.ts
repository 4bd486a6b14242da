import { join } from 'node:path';
import { REQUEST_LIMITS } from '../src/server/request-limits.js';
import { openDatabase } from '../src/storage/open-database.js';
import { benchOwner, openBenchStack } from './harness/bench-stack.js';
import type { Benchmark, BenchReport } from './harness/benchmark.js';
import { ms, type Summary, summarize } from './harness/stats.js';

const SIZES = {
  full: { teams: 20, jobs: 100, probes: 2_000, heavyLoops: 2 },
  tiny: { teams: 2, jobs: 5, probes: 20, heavyLoops: 1 },
} as const;
const TOKENS = { heavy: 'tok-heavy', light: 'tok-light' } as const;

/** Every team of the owner with 50 jobs' text each: about as much as one operation may ask for within the cost limit. */
const OVERVIEW_JOBS = 50;
const OVERVIEW = `{ viewer { teams(first: 20) { edges { node { id jobs(first: ${OVERVIEW_JOBS}) { edges { node {
  id status text result { available text } } } } } } } } }`;
/**
 * The shape of the reported attack: job lists nested through `team`, sized by a variable (which
 * graphql-armor's cost never multiplied), five times over with aliases; refused by the cost check.
 */
const BOMB = `query($t: ID!, $n: Int) { team(id: $t) { jobs(first: $n) { edges { node { text team {
  ${[1, 2, 3, 4, 5].map((i) => `a${i}: jobs(first: $n) { edges { node { text } } }`).join(' ')} } } } } } }`;

/**
 * Owner isolation: the latency of one owner's `{ viewer { id } }` over HTTP, alone and while
 * another owner runs its most expensive accepted query (and the variable-sized bomb that used to
 * stall the server for 24 s) back to back on parallel connections.
 */
export const ownerIsolation: Benchmark = {
  name: 'owner-isolation',
  title: "Owner isolation (one owner's cheap query while another runs its most expensive ones)",
  async run(ctx): Promise<BenchReport> {
    const size = SIZES[ctx.scale];
    const heavy = benchOwner(0);
    // The bench stack runs without the rate limiter: measured is the CPU one owner's queries take
    // from another, not what the limiter would refuse. The scheduler stays stopped.
    const stack = await openBenchStack(await openDatabase(join(ctx.dir, 'isolation.sqlite')), {
      tokens: new Map([
        [TOKENS.heavy, heavy],
        [TOKENS.light, benchOwner(1)],
      ]),
    });
    const server = stack.app.server;
    try {
      const teams = await stack.teams(heavy, size.teams, 2);
      const text = `${'An answer long enough to matter. '.repeat(30)}`;
      for (const { team, members } of teams) {
        for (let i = 0; i < size.jobs; i += 1) {
          await stack.core.requests.send(heavy, {
            teamId: team.id,
            memberIds: [(members[i % members.length] as { id: string }).id],
            text: `${i} ${text}`,
            clientRequestId: `isolation-${team.id}-${i}`,
          });
        }
      }
      ctx.log(`owner-isolation: ${size.teams} teams × ${size.jobs} requests ready`);
      const { url } = await server.listen(0, '127.0.0.1');
      const post = async (token: string, query: string, variables: Record<string, unknown> = {}) => {
        const started = performance.now();
        const response = await fetch(`${url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ query, variables }),
        });
        const body = await response.text();
        return { ms: performance.now() - started, bytes: body.length, body };
      };
      const probe = async (count: number) => {
        const samples: number[] = [];
        for (let i = 0; i < count; i += 1) samples.push((await post(TOKENS.light, '{ viewer { id } }')).ms);
        return summarize(samples);
      };

      await probe(Math.min(100, size.probes));
      const alone = await probe(size.probes);
      let running = true;
      const overview: number[] = [];
      const bomb: number[] = [];
      let overviewBytes = 0;
      const heavyLoop = async () => {
        while (running) {
          const answer = await post(TOKENS.heavy, OVERVIEW);
          if (!answer.body.includes('"viewer"'))
            throw new Error(`[agent-teams/bench] overview refused: ${answer.body.slice(0, 200)}`);
          overview.push(answer.ms);
          overviewBytes = answer.bytes;
          const refused = await post(TOKENS.heavy, BOMB, { t: teams[0]?.team.id, n: 100 });
          if (!refused.body.includes('maxCost')) throw new Error('[agent-teams/bench] the bomb was not refused');
          bomb.push(refused.ms);
        }
      };
      const loops = Array.from({ length: size.heavyLoops }, () => heavyLoop());
      const contended = await probe(size.probes);
      running = false;
      await Promise.all(loops);
      const heavyStats = summarize(overview);
      const bombStats = summarize(bomb);
      const row = (label: string, s: Summary) => [label, String(s.count), ms(s.p50), ms(s.p90), ms(s.p99), ms(s.max)];
      return {
        tables: [
          {
            header: ['Interval', 'Samples', 'p50', 'p90', 'p99', 'max'],
            rows: [
              row('light owner `{ viewer { id } }`, alone', alone),
              row(`light owner \`{ viewer { id } }\`, while the heavy owner runs ${size.heavyLoops} loops`, contended),
              row(
                `heavy owner: overview of ${size.teams} teams × ${Math.min(OVERVIEW_JOBS, size.jobs)} jobs each (${(overviewBytes / 2 ** 20).toFixed(1)} MiB)`,
                heavyStats,
              ),
              row('heavy owner: nested-list bomb with `$n = 100` (refused, QUERY_LIMIT maxCost)', bombStats),
            ],
          },
        ],
        method: [
          `One server (built by \`createApp\` as \`serve\` builds it, without the rate limiter; SQLite file with the production pragmas) on loopback; the heavy owner holds ${size.teams} teams of ${size.jobs} queued requests with about 1 KB of text each.`,
          `The light owner sends ${size.probes} sequential \`{ viewer { id } }\` over HTTP (after 100 warm-up requests), once alone and once while the heavy owner runs ${size.heavyLoops} loops in parallel, each alternating one of the largest accepted queries (every team with ${OVERVIEW_JOBS} jobs' text each, close to the cost limit of ${REQUEST_LIMITS.maxCost.toLocaleString('en')}) and the variable-sized bomb of the security report.`,
          'Latency is client-side wall time from `fetch` to the whole body read. The rate limiter is off, so the table shows what one owner costs another in CPU; with it on, the heavy owner would additionally be held to its token bucket.',
        ],
        notes: [
          "Before the cost counted variables, the report measured this: a nested `jobs(first: $n)` query over one full team answered 519–564 MB, took the server to 2.2 GB RSS and stalled another owner's `{ viewer { id } }` for up to 24 s. Now that query is refused in milliseconds (last row), and what one owner can still make another wait is bounded by the largest operation the cost limit admits (about one overview, second row).",
        ],
        metrics: {
          aloneP99Ms: alone.p99,
          contendedP99Ms: contended.p99,
          contendedMaxMs: contended.max,
          overviewP50Ms: heavyStats.p50,
          bombP50Ms: bombStats.p50,
        },
      };
    } finally {
      await stack.close();
    }
  },
};
