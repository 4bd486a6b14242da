import { join } from 'node:path';
import type { ConversationId } from '@agent-teams/core';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../src/storage/database-types.js';
import { conversationStates } from '../src/storage/job-reads.js';
import { historyIndexesMigration } from '../src/storage/migrations/0018-history-indexes.js';
import { openDatabase } from '../src/storage/open-database.js';
import { benchOwner, openBenchStack } from './harness/bench-stack.js';
import type { Benchmark, BenchReport } from './harness/benchmark.js';
import { ms, summarize, timed } from './harness/stats.js';
import { seedFinished } from './planning/seed.js';

const SIZES = {
  full: { teamsPerOwner: 20, finishedPerTeam: 2_000, samples: 200, warmup: 20 },
  tiny: { teamsPerOwner: 2, finishedPerTeam: 20, samples: 4, warmup: 1 },
} as const;
const OWNERS = 2;
const QUERY = 'query($id: ID!) { team(id: $id) { id members { id status } } }';

/**
 * Each conversation's last finished phase as it was read before decision 0247: a window over the
 * finished jobs of those conversations. No index served it then, so SQLite scanned `jobs`; `NOT
 * INDEXED` keeps that plan now that `jobs_finished_conversation_idx` would narrow it. The baseline.
 */
async function lastFinishedBefore(db: Kysely<Database>, ids: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await sql<{ conversation_id: string; phase: string }>`
    select conversation_id, phase from (
      select conversation_id, phase,
        row_number() over (partition by conversation_id order by updated_at desc, seq desc) as rank
      from jobs not indexed
      where unfinished = 0 and conversation_id in (${sql.join(ids)})
    ) as ranked
    where rank = 1`.execute(db);
  return new Map(rows.map((row) => [row.conversation_id, row.phase]));
}

/**
 * `member-status`: a team's member statuses on a database with a long history, read as now (each
 * conversation's last finished job one seek of `jobs_finished_conversation_idx`) against the
 * window read before, and over GraphQL (`Team.members { status }`, which the widget asks).
 */
export const memberStatus: Benchmark = {
  name: 'member-status',
  title: "A team's member statuses on a database of many finished jobs, one seek each vs. a scan",
  async run(ctx): Promise<BenchReport> {
    const size = SIZES[ctx.scale];
    const tokens = new Map(Array.from({ length: OWNERS }, (_, i) => [`tok-status-${i}`, benchOwner(i)] as const));
    const stack = await openBenchStack(await openDatabase(join(ctx.dir, 'member-status.sqlite')), { tokens });
    try {
      const teams: Awaited<ReturnType<typeof stack.teams>> = [];
      for (let i = 0; i < OWNERS; i += 1) teams.push(...(await stack.teams(benchOwner(i), size.teamsPerOwner, 2)));
      const db = stack.database.db;
      await seedFinished(db, size.finishedPerTeam);
      // Mixed ends, so a read that picked the wrong job would give another phase: FAILED,
      // CANCELLED or COMPLETED by the seeded number, and every fifth job of a conversation finished
      // at the same moment as its last one (ties the higher seq must win).
      await sql`update jobs set phase = case cast(substr(client_key, 6) as integer) % 3
          when 0 then 'FAILED' when 1 then 'CANCELLED' else 'COMPLETED' end
        where unfinished = 0`.execute(db);
      await sql`update jobs set updated_at = (
          select max(j.updated_at) from jobs as j where j.conversation_id = jobs.conversation_id and j.unfinished = 0)
        where unfinished = 0 and cast(substr(client_key, 6) as integer) % 5 = 0`.execute(db);
      // The index over the seeded history, built again and timed (what migration 0018 takes here).
      await sql`drop index jobs_finished_conversation_idx`.execute(db);
      const buildMs = await timed(() => historyIndexesMigration().up(db));
      await sql`analyze`.execute(db);
      const jobs = Number((await sql<{ n: number }>`select count(*) as n from jobs`.execute(db)).rows[0]?.n ?? 0);
      const { url } = await stack.app.server.listen(0, '127.0.0.1');
      const ownerOf = (team: (typeof teams)[number]) =>
        `tok-status-${teams.indexOf(team) < size.teamsPerOwner ? 0 : 1}`;
      let n = 0;
      const target = () => teams[n % teams.length] as (typeof teams)[number];
      const ids = () => target().members.map((m) => m.conversationId as string);
      const now = () => conversationStates(db, ids() as ConversationId[]);
      const before = () => lastFinishedBefore(db, ids());
      const graphql = async () => {
        const response = await fetch(`${url}/graphql`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ownerOf(target())}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query: QUERY, variables: { id: target().team.id } }),
        });
        const text = await response.text();
        if (!text.includes('"status"') || text.includes('"errors"'))
          throw new Error(`member-status: ${text.slice(0, 300)}`);
      };
      const reads = [now, before, graphql] as const;
      const times = reads.map(() => [] as number[]);
      for (; n < size.warmup + size.samples; n += 1) {
        // Both reads answer the same: the seek gives what the window gave.
        const [seek, window] = [await now(), await before()];
        for (const id of ids()) {
          if ((seek.get(id as ConversationId)?.lastFinished ?? null) !== (window.get(id) ?? null)) {
            throw new Error(`member-status: conversation ${id} reads differently`);
          }
        }
        // Rotated, each sample starting with the next of the three, so drift hits all three alike.
        for (let i = 0; i < reads.length; i += 1) {
          const at = (n + i) % reads.length;
          const took = await timed(reads[at] as () => Promise<unknown>);
          if (n >= size.warmup) times[at]?.push(took);
        }
      }
      const [v, w, g] = times.map((series) => summarize(series));
      if (v === undefined || w === undefined || g === undefined) throw new Error('member-status: no samples');
      const row = (label: string, s: typeof v) => [label, String(s.count), ms(s.p50), ms(s.p99), ms(s.mean)];
      return {
        tables: [
          {
            header: ["Read of one team's 2 member states", 'Samples', 'p50', 'p99', 'mean'],
            rows: [
              row(
                `store: both reads of \`conversationStates\`, one seek per conversation (now), ${jobs.toLocaleString('en-US')} jobs`,
                v,
              ),
              row('store: the window over the finished jobs alone (before; the baseline)', w),
              row('GraphQL `team { members { id status } }` over HTTP (now)', g),
            ],
          },
        ],
        method: [
          `One server built by \`createApp\` as \`serve\` builds it (SQLite file, production pragmas, rate limiter off); ${OWNERS} owners × ${size.teamsPerOwner} teams of 2 members, then ${size.finishedPerTeam.toLocaleString('en-US')} finished jobs per team (one \`INSERT … SELECT\`, as \`planning-pass\` seeds them; then a third each FAILED, CANCELLED and COMPLETED, and every fifth job of a conversation finished at the same moment as its last, a tie the higher seq wins) and \`ANALYZE\`: ${jobs.toLocaleString('en-US')} jobs.`,
          `Each sample takes the next team and reads its 2 members' last finished phases as the store reads them now (\`conversationStates\`: the head of the unfinished jobs, then each conversation's last finished job, one seek of \`jobs_finished_conversation_idx\`, migration 0018), the last finished ones as they were read before (the \`row_number()\` window over the finished jobs of those conversations alone, without the head's read; SQLite planned it as a scan of \`jobs\`, and \`NOT INDEXED\` keeps that plan beside the new index), and over HTTP as the widget asks for a team's member statuses. Before the timed reads, both forms are read and must agree for every member. The three rotate which goes first; ${size.warmup} warm-up samples are not counted.`,
          `The index over the seeded jobs, dropped and built again as migration 0018 builds it: ${buildMs.toFixed(0)} ms.`,
        ],
        metrics: { jobs, buildMs, nowP50Ms: v.p50, beforeP50Ms: w.p50, graphqlP50Ms: g.p50 },
      };
    } finally {
      await stack.close();
    }
  },
};
