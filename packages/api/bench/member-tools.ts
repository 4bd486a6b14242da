import { join } from 'node:path';
import {
  asAgentId,
  asOwnerId,
  asRunId,
  type Core,
  type Job,
  type JobId,
  Limits,
  type Member,
  nowTimestamp,
  type TeamStore,
  type TurnInput,
  transition,
} from '@agent-teams/core';
import { StaticCatalog } from '@agent-teams/testkit';
import { createRandomIds } from '../src/adapters/random-ids.js';
import { createSystemClock } from '../src/adapters/system-clock.js';
import { createApp } from '../src/app/create-app.js';
import type { Benchmark, BenchReport } from './harness/benchmark.js';
import { ms, summarize } from './harness/stats.js';

const SAMPLES = { full: 1_000, tiny: 5 } as const;
const WARMUP = { full: 100, tiny: 1 } as const;

/** An answer of mixed widths over the 6,000-byte cap: each job keeps 6,000 bytes and the notice. */
const ANSWER = `Findings: ${'Quarterly revenue 数据 grew; "quotes" and \\ slashes. '.repeat(200)}`;

/**
 * Fills one team to capacity through the store: 100 requests from Ada to Bob, each completed
 * with an answer cut to 6,000 bytes, each with its receipt (200 jobs); the record holds its newest 100
 * messages. The last receipt stays unfinished: it is the caller the tools are bound to.
 */
async function fullTeam(store: TeamStore, core: Core): Promise<{ caller: JobId; sample: JobId }> {
  const ids = createRandomIds();
  const clock = createSystemClock();
  const now = () => nowTimestamp(clock);
  const owner = asOwnerId('bench-tools');
  const members = ['Ada', 'Bob'].map((name) => ({
    id: ids.memberId(),
    name,
    agentId: asAgentId('researcher'),
    conversationId: ids.conversationId(),
  }));
  const { team } = await store.createTeam(
    { id: ids.teamId(), owner, clientRequestId: 'bench', fingerprint: 'f', name: 'Full', goal: 'Bench', members },
    { now: now(), maxTeams: Limits.teamsPerOwner },
  );
  const [ada, bob] = (await store.listMembers([team.id])) as [Member, Member];
  const input = (job: Job): TurnInput => ({
    kind: 'request',
    jobId: job.id,
    teamId: job.teamId,
    text: job.text,
    memberName: 'Bob',
    requesterName: 'Ada',
    receipt: null,
    context: null,
  });
  let sample: JobId | null = null;
  for (let i = 0; i < Limits.requestsPerTeam; i += 1) {
    const id = ids.jobId();
    const requester = { memberId: ada.id, conversationId: ada.conversationId };
    const [job] = await store.enqueueRequests({
      owner,
      teamId: team.id,
      keys: [{ requesterConversationId: ada.conversationId, clientKey: `k${i}`, memberId: bob.id }],
      roots: [id],
      now: now(),
      decide: () => ({
        insert: [
          {
            id,
            recordId: ids.recordId(),
            memberId: bob.id,
            conversationId: bob.conversationId,
            requester,
            parentId: null,
            rootId: id,
            clientKey: `k${i}`,
            text: `Task ${i}: check the quarterly numbers for region ${i % 7}`,
          },
        ],
        resultIds: [id],
      }),
    });
    const ctx = { now: now(), ids };
    await store.updateJob(
      (job as Job).id,
      (current) => {
        const frozen = transition(current, { type: 'FREEZE', input: input(current), runKey: current.id }, ctx);
        if (!frozen.ok) return frozen;
        const acked = transition(frozen.job, { type: 'ACKNOWLEDGE', runId: asRunId(`run_${current.id}`) }, ctx);
        return acked.ok ? transition(acked.job, { type: 'COMPLETE', answer: `${ANSWER} #${i}` }, ctx) : acked;
      },
      { now: ctx.now },
    );
    sample ??= (job as Job).id;
  }
  const receipts = await core.jobs.list(team, { kind: 'RECEIPT', first: 100 });
  const caller = receipts.edges.at(-1)?.node.id;
  if (caller === undefined || sample === null) throw new Error('[agent-teams/bench] the full team has no receipts');
  return { caller, sample };
}

/**
 * `tools`: p50/p99 of each member read tool on a full team (100 record messages, 200 jobs,
 * 6,000-byte answers), in process, through `core.tools.invoke` on SQLite (a file, WAL).
 */
export const memberTools: Benchmark = {
  name: 'tools',
  title: 'Member read tools on a full team',
  async run(ctx): Promise<BenchReport> {
    // The application as `serve` builds it, without a scheduler: the team is filled through the store.
    const app = await createApp({
      database: join(ctx.dir, 'tools.sqlite'),
      catalog: new StaticCatalog(),
      scheduler: false,
    });
    try {
      const { core, store } = app;
      ctx.log('tools: filling a team to capacity');
      const { caller, sample } = await fullTeam(store, core);
      const calls: readonly [string, string, Record<string, unknown>][] = [
        ['read_team_context', 'read_team_context', {}],
        ['read_team_history', 'read_team_history', {}],
        ['read_team_history (query)', 'read_team_history', { query: 'REGION 3', limit: 20 }],
        ['search_team_results', 'search_team_results', {}],
        ['search_team_results (query)', 'search_team_results', { query: '数据', limit: 20 }],
        ['read_team_result', 'read_team_result', { job_id: sample }],
      ];
      const rows: string[][] = [];
      const metrics: Record<string, number> = {};
      for (const [label, name, args] of calls) {
        for (let i = 0; i < WARMUP[ctx.scale]; i += 1) await core.tools.invoke(caller, name, args);
        const samples: number[] = [];
        let bytes = 0;
        for (let i = 0; i < SAMPLES[ctx.scale]; i += 1) {
          const started = performance.now();
          const answer = await core.tools.invoke(caller, name, args);
          samples.push(performance.now() - started);
          bytes = Buffer.byteLength(JSON.stringify(answer), 'utf8');
        }
        const summary = summarize(samples);
        rows.push([label, ms(summary.p50), ms(summary.p99), ms(summary.max), bytes.toLocaleString('en-US')]);
        const key = label.replace(/\W+/g, '_').replace(/_$/, '');
        metrics[`${key}_p50Ms`] = summary.p50;
        metrics[`${key}_p99Ms`] = summary.p99;
        metrics[`${key}_bytes`] = bytes;
      }
      return {
        tables: [{ header: ['tool', 'p50', 'p99', 'max', 'answer bytes'], rows }],
        method: [
          'One team at capacity on a SQLite file: 100 requests (Ada → Bob) each completed with an answer cut to the 6,000-byte cap, their 100 receipts (200 jobs), the newest 100 record messages retained.',
          'Each call goes through `core.tools.invoke(jobId, name, args)`: caller check (job, team, roster), the store read, the 24,000-byte budget and the JSON answer, as a runtime or `invokeTeamTool` gets it (GraphQL transport excluded).',
          `${SAMPLES.full} timed calls per tool after ${WARMUP.full} warm-up calls (tiny scale: ${SAMPLES.tiny}); goal p99 ≤ 2 ms.`,
        ],
        metrics,
      };
    } finally {
      await app.close();
    }
  },
};
