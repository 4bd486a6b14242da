import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createSchema, createYoga } from 'graphql-yoga';
import { openDatabase } from '../src/storage/open-database.js';
import { BenchChild } from './harness/bench-child.js';
import { benchOwner, openBenchStack } from './harness/bench-stack.js';
import type { Benchmark, BenchReport } from './harness/benchmark.js';

const SIZES = {
  full: { owners: 12, teamsPerOwner: 20, concurrency: 16, warmupMs: 1_000, durationMs: 5_000 },
  tiny: { owners: 1, teamsPerOwner: 2, concurrency: 2, warmupMs: 100, durationMs: 300 },
} as const;
/** The goal of issue "performance users feel": sendRequest/s ÷ hello-world/s. */
const GOAL_RATIO = 0.6;

const SEND = 'mutation($input: SendRequestInput!) { sendRequest(input: $input) { jobs { id } } }';

interface Done {
  readonly type: 'done';
  readonly ok: number;
  readonly failed: number;
  readonly seconds: number;
  readonly firstFailure: string | null;
  readonly cpuMicros: number;
}

/** One measured load: answers per second and the server process's CPU per answer. */
interface Rate {
  readonly label: string;
  readonly perSecond: number;
  readonly serverCpuUs: number;
  readonly failed: number;
}

/**
 * GraphQL throughput: `sendRequest` mutations per second against a hello-world Yoga server in the
 * same process, both driven by one load process over keep-alive HTTP on loopback.
 */
export const graphqlThroughput: Benchmark = {
  name: 'graphql-throughput',
  title: 'GraphQL throughput (sendRequest mutations/s against a hello-world Yoga in the same process)',
  async run(ctx): Promise<BenchReport> {
    const size = SIZES[ctx.scale];
    // Each team takes at most 100 requests: 12 owners × 20 teams leave room for 4,000 answers a
    // second over the 6 s of a row, and the row with the scheduler running gets teams of its own
    // (twice the owners), so the requests the rows before it left never fill its teams.
    const owners = Array.from({ length: size.owners * 2 }, (_, i) => benchOwner(i));
    const tokens = new Map(owners.map((owner, i) => [`tok-throughput-${i}`, owner]));
    const stack = await openBenchStack(await openDatabase(join(ctx.dir, 'throughput.sqlite')), { tokens });
    const hello = createServer(
      createYoga({
        schema: createSchema({
          typeDefs: 'type Query { hello: String! }',
          resolvers: { Query: { hello: () => 'world' } },
        }),
        logging: false,
        graphiql: false,
      }),
    );
    // The same server on group commit (`--sqlite-synchronous group`), next to the default.
    const grouped = await openBenchStack(
      await openDatabase(join(ctx.dir, 'throughput-group.sqlite'), { sqliteSynchronous: 'group' }),
      { tokens },
    );
    const load = BenchChild.fork('graphql-throughput/load', 'http-load-process.ts');
    try {
      const targetsOf = async (of: typeof stack, first: number) => {
        const found: { token: string; fragment: string }[] = [];
        for (let i = first; i < first + size.owners; i += 1) {
          const owner = owners[i] as (typeof owners)[number];
          for (const { team, members } of await of.teams(owner, size.teamsPerOwner, 2)) {
            for (const member of members) {
              found.push({
                token: `tok-throughput-${i}`,
                fragment: `"teamId":${JSON.stringify(team.id)},"memberIds":[${JSON.stringify(member.id)}]`,
              });
            }
          }
        }
        return found;
      };
      const targets = await targetsOf(stack, 0);
      const busyTargets = await targetsOf(stack, size.owners);
      const groupTargets = await targetsOf(grouped, 0);
      const groupUrl = (await grouped.app.server.listen(0, '127.0.0.1')).url;
      const { url } = await stack.app.server.listen(0, '127.0.0.1');
      await new Promise<void>((resolve) => hello.listen(0, '127.0.0.1', resolve));
      const helloUrl = `http://127.0.0.1:${(hello.address() as AddressInfo).port}/graphql`;
      const measure = async (
        label: string,
        target: string,
        template: string,
        useTargets: boolean,
        to = targets,
      ): Promise<Rate> => {
        const cpu = process.cpuUsage();
        const done = await load.request<Done>(
          {
            type: 'run',
            url: target,
            tokens: useTargets ? to.map((t) => t.token) : ['tok-throughput-0'],
            targets: useTargets ? to.map((t) => t.fragment) : [''],
            template,
            concurrency: size.concurrency,
            warmupMs: size.warmupMs,
            durationMs: size.durationMs,
          },
          'done',
          size.warmupMs + size.durationMs + 60_000,
        );
        const used = process.cpuUsage(cpu);
        if (done.failed > 0)
          ctx.log(`graphql-throughput: ${label}: ${done.failed} failed, first: ${done.firstFailure}`);
        const answered = done.ok + done.failed;
        return {
          label,
          perSecond: done.ok / done.seconds,
          // The whole window's CPU of this process (warm-up included) over every answer it gave.
          serverCpuUs: (used.user + used.system) / Math.max(1, answered * (1 + size.warmupMs / size.durationMs)),
          failed: done.failed,
        };
      };
      const body = (query: string, variables = '{}') => `{"query":${JSON.stringify(query)},"variables":${variables}}`;
      const sendBody = (run: string) =>
        body(SEND, `{"input":{__TARGET__,"text":"Ping __N__","clientRequestId":"${run}-__N__"}}`);
      const rates: Rate[] = [];
      // Uncounted: the load process's own code warms up too (its first run was half as fast).
      await measure('warm-up', helloUrl, body('{ hello }'), false);
      rates.push(await measure('Yoga hello world `{ hello }`', helloUrl, body('{ hello }'), false));
      rates.push(await measure('Agent Teams `{ viewer { id } }`', `${url}/graphql`, body('{ viewer { id } }'), true));
      rates.push(
        await measure('Agent Teams `sendRequest` (scheduler stopped)', `${url}/graphql`, sendBody('idle'), true),
      );
      // Hello world again, right after: the ratio's base is the mean of both runs, so a drift of
      // this shared host's speed between the rows moves both sides alike.
      rates.push(await measure('Yoga hello world `{ hello }`, again', helloUrl, body('{ hello }'), false));
      await stack.scheduler.start();
      rates.push(
        await measure(
          'Agent Teams `sendRequest` (scheduler running the turns)',
          `${url}/graphql`,
          sendBody('busy'),
          true,
          busyTargets,
        ),
      );
      // The backlog the last rows left is not the group row's: without this, the first server's
      // scheduler would still be running those turns beside it.
      await stack.scheduler.stop();
      rates.push(
        await measure(
          'Agent Teams `sendRequest` (scheduler stopped), `--sqlite-synchronous group`',
          `${groupUrl}/graphql`,
          sendBody('group'),
          true,
          groupTargets,
        ),
      );
      const base = ((rates[0]?.perSecond ?? 1) + (rates[3]?.perSecond ?? 1)) / 2;
      const ratio = (rates[2]?.perSecond ?? 0) / base;
      return {
        tables: [
          {
            header: [
              'load',
              'answers/s',
              'ratio to hello world (mean of its two runs)',
              'server CPU per answer',
              'failed',
            ],
            rows: rates.map((r) => [
              r.label,
              r.perSecond.toFixed(0),
              (r.perSecond / base).toFixed(2),
              `${(r.serverCpuUs / 1000).toFixed(3)} ms`,
              String(r.failed),
            ]),
          },
        ],
        method: [
          `One process serves both: the Agent Teams server built by \`createApp\` as \`serve\` builds it (SQLite file, production pragmas, rate limiter off) and a hello-world \`createYoga\` with one resolver on its own port; one load process (\`bench/http-load-process.ts\`, fetch over keep-alive) keeps ${size.concurrency} POSTs in flight for ${size.durationMs / 1000} s after ${size.warmupMs / 1000} s of warm-up, against each in turn.`,
          `\`sendRequest\` goes to ${targets.length} members of ${size.owners * size.teamsPerOwner} teams of ${size.owners} owners in rotation (each team stays under its 100 unfinished requests), each with its own \`clientRequestId\`; an answer counts when it holds \`data\` and no \`errors\`.`,
          `The ratio (goal ≥ ${GOAL_RATIO}) is the \`sendRequest\` rate with the scheduler stopped (the GraphQL path: parse, validate, auth, cost, the write) over the hello-world rate, the mean of its run before the Agent Teams rows and its run right after that \`sendRequest\` row (before them, one uncounted hello-world run warms up the load process, whose first run was half as fast). Then the scheduler starts: in the row \`(scheduler running the turns)\` every accepted request also becomes an instant scripted turn on the same two cores; that row sends to ${targets.length} members of teams of ${size.owners} other owners, so the requests the rows before it left unfinished never fill its teams. Server CPU per answer is this process's CPU over the window (warm-up included) per answer. The last row sends the same mutations to a second server in the same process whose SQLite file is opened with \`--sqlite-synchronous group\` (group commit: each writer waits for an \`fdatasync\` of the log run off the event loop and shared by the commits made meanwhile; decision 0200), its scheduler stopped; the first server's scheduler is stopped before it, so the backlog of turns the previous rows left does not run beside it.`,
        ],
        metrics: {
          helloPerSecond: base,
          sendPerSecond: rates[2]?.perSecond ?? 0,
          helloFirstPerSecond: rates[0]?.perSecond ?? 0,
          helloAgainPerSecond: rates[3]?.perSecond ?? 0,
          sendBusyPerSecond: rates[4]?.perSecond ?? 0,
          sendGroupPerSecond: rates[5]?.perSecond ?? 0,
          ratio,
        },
      };
    } finally {
      await load.close();
      await new Promise((resolve) => hello.close(resolve));
      await stack.close();
      await grouped.close();
    }
  },
};
