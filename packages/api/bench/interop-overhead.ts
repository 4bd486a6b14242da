import { join } from 'node:path';
import { type Job, Limits, type OwnerId } from '@agent-teams/core';
import { OWNER_TOOL_SPECS, type OwnerToolSpec } from '../src/server/mcp/owner-tools.js';
import { openDatabase } from '../src/storage/open-database.js';
import { benchOwner, openBenchStack } from './harness/bench-stack.js';
import type { Benchmark, BenchReport } from './harness/benchmark.js';
import { ms, type Summary, summarize } from './harness/stats.js';

const SAMPLES = { full: 400, tiny: 5 } as const;
const WARMUP = { full: 50, tiny: 1 } as const;
const TOKEN = 'bench-interop';
/** `get_job`'s own operation: the direct path reads exactly what the tool reads. */
const GET_JOB = OWNER_TOOL_SPECS.find((spec) => spec.name === 'get_job') as OwnerToolSpec;

/** One way of doing something, timed: a label and one call (its answer checked by the caller). */
type Path = { readonly label: string; readonly call: (i: number) => Promise<void> };

async function post(url: string, authorization: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization, ...headers },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (!response.ok || 'error' in json || 'errors' in json || (json.result as { isError?: boolean })?.isError) {
    throw new Error(`[agent-teams/bench] call failed: ${JSON.stringify(json).slice(0, 300)}`);
  }
  return json;
}

/** Times two paths interleaved (alternating which goes first), so drift hits both alike. */
async function compare(base: Path, other: Path, samples: number, warmup: number): Promise<[Summary, Summary]> {
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < warmup + samples; i += 1) {
    const order = i % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const);
    for (const which of order) {
      const path = which === 0 ? base : other;
      const started = performance.now();
      await path.call(i);
      if (i >= warmup) times[which].push(performance.now() - started);
    }
  }
  return [summarize(times[0]), summarize(times[1])];
}

/**
 * `interop`: the overhead of an MCP tool call and of an A2A send over the direct GraphQL path,
 * each against its GraphQL twin on the same real server (loopback HTTP, SQLite file), in one run.
 */
export const interopOverhead: Benchmark = {
  name: 'interop',
  title: 'MCP tool calls and A2A sends next to the direct GraphQL path',
  async run(ctx): Promise<BenchReport> {
    const database = await openDatabase(join(ctx.dir, 'interop.sqlite'));
    const owner: OwnerId = benchOwner(1);
    // One owner driven as fast as the loop goes: the bench stack has no rate limiter.
    const stack = await openBenchStack(database, { tokens: new Map([[TOKEN, owner]]) });
    const tokens = stack.app.memberRunTokens;
    if (tokens === null) throw new Error('[agent-teams/bench] no member-run tokens');
    const server = stack.app.server;
    const { url } = await server.listen(0, '127.0.0.1');
    try {
      const samples = SAMPLES[ctx.scale];
      const warmup = WARMUP[ctx.scale];
      // Each path creates a request per call: enough teams for both at 100 requests per team.
      const perTeam = Limits.requestsPerTeam;
      const teams = await stack.teams(owner, Math.ceil((2 * (samples + warmup)) / perTeam) + 1, 2);
      const [first] = teams;
      if (!first) throw new Error('[agent-teams/bench] no team');
      // The scheduler is not started: every job stays QUEUED, its member-run token valid.
      const [job] = (await stack.core.requests.send(owner, {
        teamId: first.team.id,
        memberIds: [first.members[0]?.id ?? ''],
        text: 'Hold the tools open',
        clientRequestId: 'bench-tools',
      })) as [Job];
      const memberToken = `Bearer ${await tokens.issue(job)}`;
      const ownerAuth = `Bearer ${TOKEN}`;
      const graphql = (query: string, variables: Record<string, unknown>, auth = ownerAuth) =>
        post(`${url}/graphql`, auth, { query, variables });
      const mcp = (name: string, args: Record<string, unknown>, auth = ownerAuth) =>
        post(
          `${url}/mcp`,
          auth,
          { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
          {
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-11-25',
          },
        );
      const slot = (i: number, which: 0 | 1) => {
        const n = 2 * i + which;
        const target = teams[1 + Math.floor(n / perTeam)] ?? first;
        return { teamId: target.team.id, memberId: target.members[1]?.id ?? '' };
      };
      const comparisons: [string, Path, Path][] = [
        [
          'read a job (owner)',
          {
            label: 'GraphQL `job(id)` (the same selection)',
            call: () => graphql(GET_JOB.document, GET_JOB.variables({ job_id: job.id })).then(),
          },
          { label: 'MCP `get_job`', call: () => mcp('get_job', { job_id: job.id }).then() },
        ],
        [
          'member tool `read_team_context`',
          {
            label: 'GraphQL `invokeTeamTool`',
            call: () =>
              graphql(
                'mutation($input: InvokeTeamToolInput!) { invokeTeamTool(input: $input) }',
                { input: { name: 'read_team_context', arguments: {} } },
                memberToken,
              ).then(),
          },
          { label: 'MCP `read_team_context`', call: () => mcp('read_team_context', {}, memberToken).then() },
        ],
        [
          'send a request (owner)',
          {
            label: 'GraphQL `sendRequest`',
            call: (i) => {
              const { teamId, memberId } = slot(i, 0);
              return graphql(
                'mutation($input: SendRequestInput!) { sendRequest(input: $input) { jobs { id status } } }',
                { input: { teamId, memberIds: [memberId], text: `Task ${i}`, clientRequestId: `g-${i}` } },
              ).then();
            },
          },
          {
            label: 'A2A `SendMessage` (returnImmediately)',
            call: (i) => {
              const { teamId, memberId } = slot(i, 1);
              const message = { messageId: `a-${i}`, role: 'ROLE_USER', parts: [{ text: `Task ${i}` }] };
              return post(
                `${url}/a2a/${teamId}/${memberId}`,
                ownerAuth,
                {
                  jsonrpc: '2.0',
                  id: i,
                  method: 'SendMessage',
                  params: { message, configuration: { returnImmediately: true } },
                },
                { 'a2a-version': '1.0' },
              ).then();
            },
          },
        ],
      ];
      const rows: string[][] = [];
      const metrics: Record<string, number> = {};
      for (const [what, base, other] of comparisons) {
        ctx.log(`interop: ${what}`);
        const [a, b] = await compare(base, other, samples, warmup);
        const ratio = b.p50 / a.p50;
        rows.push([what, base.label, ms(a.p50), ms(a.p99), other.label, ms(b.p50), ms(b.p99), `${ratio.toFixed(2)}×`]);
        const key = what.replace(/\W+/g, '_').replace(/^_|_$/g, '');
        metrics[`${key}_graphqlP50Ms`] = a.p50;
        metrics[`${key}_otherP50Ms`] = b.p50;
        metrics[`${key}_ratio`] = ratio;
      }
      return {
        tables: [
          {
            header: ['operation', 'direct path', 'p50', 'p99', 'interop path', 'p50', 'p99', 'p50 ratio'],
            rows,
          },
        ],
        method: [
          'One real server (built by `createApp` as `serve` builds it, without the rate limiter: Yoga on node:http with the MCP and A2A endpoints), a SQLite file, the scheduler not started (jobs stay QUEUED, so only the call itself is timed), a client in the same process over loopback HTTP (`fetch`, one request per call).',
          'Each comparison interleaves the two paths call by call (alternating which goes first), so warm-up, GC and machine drift fall on both alike; the ratio is of p50s from the same run.',
          'MCP calls are what a stateless client sends after `initialize`: one `tools/call` POST with `MCP-Protocol-Version: 2025-11-25`, answered as JSON by a fresh SDK `Server` and transport. An owner tool executes its GraphQL operation in process (parse and validate through the Yoga envelop, graphql-js `execute`, the one error mask), as the WebSocket endpoint does.',
          'The direct path of each comparison is the operation the interop path runs: `get_job` against the same `job(id)` selection, `read_team_context` against `invokeTeamTool`, the A2A send against `sendRequest` for one member.',
          'The A2A send is a `SendMessage` with `returnImmediately: true` (the request is created and its task returned, like `sendRequest`); a blocking send waits for the turn and is not comparable.',
          `${SAMPLES.full} timed calls per path after ${WARMUP.full} warm-up calls (tiny scale: ${SAMPLES.tiny}).`,
        ],
        metrics,
      };
    } finally {
      await stack.close();
    }
  },
};
