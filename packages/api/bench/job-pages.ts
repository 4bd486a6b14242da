import { join } from 'node:path';
import type { Job, TeamId } from '@agent-teams/core';
import type { Kysely } from 'kysely';
import type { Database } from '../src/storage/database-types.js';
import { openDatabase } from '../src/storage/open-database.js';
import { toJob } from '../src/storage/row-mappers.js';
import { benchOwner, openBenchStack, sendToAll } from './harness/bench-stack.js';
import type { Benchmark, BenchReport } from './harness/benchmark.js';
import { ms, summarize, timed } from './harness/stats.js';

const SIZES = {
  // A team holds at most 100 requests (`Limits`): two members × 50 sends, one full page.
  full: { sends: 50, samples: 300, warmup: 50 },
  tiny: { sends: 3, samples: 4, warmup: 2 },
} as const;

/** What each member answers: full answers fill the team's shared context, so every frozen turn carries about 23 KB of it. */
const TEXT = '!bytes 2800';
const PAGE = 100;
const TOKEN = 'tok-job-pages';
const QUERY = `query($id: ID!) { team(id: $id) { jobs(first: ${PAGE}) { totalCount edges { node { id status text result { text } } } } } }`;

/**
 * The page as it was read before the thirty-second pass (`select *`, every row mapped to a whole
 * job): the baseline, measured in the same run.
 */
async function wholeRowsPage(db: Kysely<Database>, teamId: TeamId): Promise<{ items: Job[]; totalCount: number }> {
  const filtered = db.selectFrom('jobs').where('team_id', '=', teamId);
  const total = await filtered.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  const rows = await filtered
    .selectAll()
    .orderBy('seq')
    .limit(PAGE + 1)
    .execute();
  return { items: rows.slice(0, PAGE).map(toJob), totalCount: Number(total.n) };
}

/**
 * `job-pages`: a page of a team's 100 finished jobs, each with its frozen input (the turn's team
 * context, about 23 KB), read as pages read it now (every column but the input) against the whole
 * rows read before, and over GraphQL (`Team.jobs`) as the widget asks for it.
 */
export const jobPages: Benchmark = {
  name: 'job-pages',
  title: 'A page of 100 finished jobs (Team.jobs), without their frozen inputs vs. whole rows',
  async run(ctx): Promise<BenchReport> {
    const size = SIZES[ctx.scale];
    const owner = benchOwner(0);
    const stack = await openBenchStack(await openDatabase(join(ctx.dir, 'job-pages.sqlite')), {
      tokens: new Map([[TOKEN, owner]]),
    });
    try {
      const [target] = await stack.teams(owner, 1, 2);
      if (target === undefined) throw new Error('no team');
      const teamId = target.team.id;
      await stack.scheduler.start();
      // One send at a time, each after the last finished: every turn's context holds the answers before it.
      for (let i = 0; i < size.sends; i += 1) {
        await sendToAll(stack.core, owner, target, `pages-${i}`, TEXT);
        while ((await stack.unfinished()) > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await stack.scheduler.stop();
      const db = stack.database.db;
      const stored = await db
        .selectFrom('jobs')
        .select((eb) => [
          eb.fn.countAll<number>().as('jobs'),
          eb.fn.sum<number>(eb.fn('length', ['input_json'])).as('inputChars'),
        ])
        .where('team_id', '=', teamId)
        .executeTakeFirstOrThrow();
      const jobs = Number(stored.jobs);
      const inputKiB = Number(stored.inputChars) / 1024;
      const { url } = await stack.app.server.listen(0, '127.0.0.1');
      const body = JSON.stringify({ query: QUERY, variables: { id: teamId } });
      let answerBytes = 0;
      const graphql = async () => {
        const response = await fetch(`${url}/graphql`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body,
        });
        const text = await response.text();
        if (!text.includes('"totalCount"') || text.includes('"errors"'))
          throw new Error(`job-pages: ${text.slice(0, 300)}`);
        answerBytes = Buffer.byteLength(text);
      };
      const now = () => stack.store.listJobs(teamId, {}, { first: PAGE, afterSeq: null });
      const before = () => wholeRowsPage(db, teamId);
      const views: number[] = [];
      const whole: number[] = [];
      const answers: number[] = [];
      const reads = [now, before, graphql] as const;
      // Rotated, each sample starting with the next of the three, so drift hits all three alike.
      for (let n = 0; n < size.warmup + size.samples; n += 1) {
        const times = new Map<unknown, number>();
        for (let i = 0; i < reads.length; i += 1) {
          const read = reads[(n + i) % reads.length] as (typeof reads)[number];
          times.set(read, await timed(read));
        }
        if (n < size.warmup) continue;
        views.push(times.get(now) as number);
        whole.push(times.get(before) as number);
        answers.push(times.get(graphql) as number);
      }
      ctx.log(`job-pages: ${jobs} jobs, ${inputKiB.toFixed(0)} KiB of stored inputs`);
      const v = summarize(views);
      const w = summarize(whole);
      const a = summarize(answers);
      const row = (label: string, s: typeof v) => [label, String(s.count), ms(s.p50), ms(s.p99), ms(s.mean)];
      return {
        tables: [
          {
            header: ['Read of one page', 'Samples', 'p50', 'p99', 'mean'],
            rows: [
              row(`store: every column but the input (now), ${jobs} jobs`, v),
              row('store: whole rows, inputs parsed (before; the baseline)', w),
              row(
                `GraphQL \`Team.jobs(first: ${PAGE})\` over HTTP (now; id, status, text and result; ${(answerBytes / 1024).toFixed(0)} KiB answered)`,
                a,
              ),
            ],
          },
        ],
        method: [
          `One server built by \`createApp\` as \`serve\` builds it (SQLite file, production pragmas, rate limiter off, scripted runtime). One team of 2 members gets ${size.sends} requests to both, one send after the last finished, each answered with 2,800 bytes (\`${TEXT}\`): the team's newest records then fill its shared context, so each frozen turn input carries up to about 23 KB of it, as with agents that write full answers. The ${jobs} finished jobs keep ${inputKiB.toFixed(0)} KiB of stored inputs (${(inputKiB / Math.max(1, jobs)).toFixed(1)} KiB each on average; the first turns' contexts are smaller).`,
          `Each sample reads the page of the first ${PAGE} jobs (with the filtered total) three ways: through the store as pages read it now (\`listJobs\`: every column but \`input_json\`, mapped to a \`JobView\`), the same page as it was read before (\`select *\`, every row mapped to a whole job), and \`Team.jobs(first: ${PAGE})\` over HTTP asking each job's id, status, text and result. The three reads rotate which goes first; ${size.warmup} warm-up samples are not counted. The baseline parses every input but those this process froze last (it keeps the last 32 with their text, \`frozen-inputs.ts\`): here the page's last 32 jobs, so a server reading older jobs, or one restarted since, saves more than the table shows.`,
        ],
        metrics: {
          jobs,
          inputKiB,
          viewP50Ms: v.p50,
          wholeP50Ms: w.p50,
          graphqlP50Ms: a.p50,
          ratio: w.p50 / Math.max(1e-9, v.p50),
        },
      };
    } finally {
      await stack.close();
    }
  },
};
