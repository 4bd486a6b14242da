import { join } from 'node:path';
import { asOwnerId } from '@agent-teams/core';
import { type OpenDatabaseOptions, openDatabase } from '../src/storage/open-database.js';
import type { Benchmark, BenchReport } from './harness/benchmark.js';
import { ms, type Summary, summarize } from './harness/stats.js';
import { openTurnClient, type TurnClient } from './harness/turn-client.js';
import { openTurnStack, type TurnStack } from './harness/turn-stack.js';
import { profileTurnCommits } from './turn-commits.js';
import { type Phases, phaseRows, phasesOf } from './turn-phases.js';

/** Per concurrency: counted samples per worker and uncounted warm-up samples per worker. */
const SIZES = {
  full: { rounds: 3, samples: { 1: 120, 8: 30 }, warmup: 8, counted: 40 },
  tiny: { rounds: 1, samples: { 1: 4, 8: 2 }, warmup: 1, counted: 3 },
} as const;
const CONCURRENCY = [1, 8] as const;
/** Requests per team stay below the 100-request limit. */
const PER_TEAM = 90;

/** One round's series at one concurrency. */
interface Series {
  readonly turns: number[];
  readonly accepted: number[];
  readonly direct: number[];
  readonly phases: Phases[];
}

/** One worker: its own teams in turn, one turn and one direct call per sample, order alternating. */
async function worker(
  stack: TurnStack,
  client: TurnClient,
  teams: { teamId: string; members: { id: string }[] }[],
  label: string,
  count: number,
  warmup: number,
  into: Series,
): Promise<void> {
  for (let i = 0; i < warmup + count; i += 1) {
    const team = teams[Math.floor(i / PER_TEAM)];
    const member = team?.members[i % 2];
    if (!team || !member) throw new Error('[agent-teams/bench] not enough teams');
    const key = `[${label}-${i}]`;
    const text = `Answer sample ${key}`;
    const turn = async () => {
      const called = performance.now();
      const jobId = await client.send(team.teamId, member.id, text, `turn-${label}-${i}`);
      const accepted = performance.now();
      const seen = await client.seen(jobId, 'COMPLETED');
      if (i < warmup) return;
      into.turns.push(seen - called);
      into.accepted.push(seen - accepted);
      into.phases.push(phasesOf(stack.trace(jobId, key), called, accepted, seen));
    };
    const direct = async () => {
      const started = performance.now();
      await stack.direct(text);
      if (i >= warmup) into.direct.push(performance.now() - started);
    };
    if (i % 2 === 0) {
      await turn();
      await direct();
    } else {
      await direct();
      await turn();
    }
  }
}

/** Runs one round at one concurrency with a fresh owner, its teams subscribed before the first send. */
async function round(
  stack: TurnStack,
  token: string,
  owner: number,
  concurrency: number,
  count: number,
  warmup: number,
): Promise<Series> {
  const perWorker = Math.ceil((count + warmup) / PER_TEAM);
  const teams: Awaited<ReturnType<TurnStack['team']>>[] = [];
  for (let i = 0; i < concurrency * perWorker; i += 1) teams.push(await stack.team(asOwnerId(`turn-owner-${owner}`)));
  const client = openTurnClient(
    stack.url,
    token,
    teams.map((team) => team.teamId),
  );
  await client.ready;
  const series: Series = { turns: [], accepted: [], direct: [], phases: [] };
  try {
    await Promise.all(
      Array.from({ length: concurrency }, (_, w) =>
        worker(stack, client, teams.slice(w * perWorker, (w + 1) * perWorker), `${owner}-${w}`, count, warmup, series),
      ),
    );
  } finally {
    client.close();
    stack.clearTraces();
  }
  return series;
}

/** The databases opened otherwise whose rounds follow the main ones (labels as in the table). */
const VARIANTS = [
  {
    label: '`synchronous=normal`',
    file: 'normal',
    metric: 'Normal',
    options: { sqliteSynchronous: 'normal' },
    concurrency: [1],
  },
  {
    label: 'fsync inside COMMIT (before group commit)',
    file: 'inline',
    metric: 'Inline',
    options: { sqliteSyncMethod: 'inline' },
    concurrency: [1, 8],
  },
] as const satisfies readonly {
  label: string;
  file: string;
  metric: string;
  options: OpenDatabaseOptions;
  concurrency: readonly (typeof CONCURRENCY)[number][];
}[];

const added = (turn: Summary, direct: Summary) => ({ p50: turn.p50 - direct.p50, p99: turn.p99 - direct.p99 });

/**
 * `turn-overhead`: what the framework adds to one agent turn. A member on the `openai` runtime
 * whose provider is a local fake answering at once (real HTTP on loopback, streaming), driven like
 * a user drives it (`sendRequest` over HTTP, COMPLETED on a graphql-ws `teamEvents` subscription),
 * against the same call made directly with the same OpenAI client, interleaved.
 */
export const turnOverhead: Benchmark = {
  name: 'turn-overhead',
  title: 'Turn overhead (sendRequest → COMPLETED seen, instant local provider, vs. a direct call)',
  async run(ctx): Promise<BenchReport> {
    const size = SIZES[ctx.scale];
    const tokens = new Map<string, string>();
    // One owner per round, and the rounds on the other databases (VARIANTS) after them.
    const variantRounds = VARIANTS.reduce((n, variant) => n + variant.concurrency.length, 0);
    for (let r = 0; r < size.rounds * (CONCURRENCY.length + variantRounds); r += 1)
      tokens.set(`turn-token-${r}`, `turn-owner-${r}`);
    const stack = await openTurnStack(await openDatabase(join(ctx.dir, 'turns.sqlite')), tokens);
    const rows: string[][] = [];
    const metrics: Record<string, number> = {};
    const breakdown: Phases[] = [];
    const cpuStart = process.cpuUsage();
    let turnsRun = 0;
    try {
      await stack.app.start();
      let owner = 0;
      for (const concurrency of CONCURRENCY) {
        const count = size.samples[concurrency];
        const spread: { p50: number; p99: number }[] = [];
        for (let r = 0; r < size.rounds; r += 1) {
          const s = await round(stack, `turn-token-${owner}`, owner, concurrency, count, size.warmup);
          owner += 1;
          turnsRun += (count + size.warmup) * concurrency;
          if (concurrency === 1) breakdown.push(...s.phases);
          const turn = summarize(s.turns);
          const accepted = summarize(s.accepted);
          const direct = summarize(s.direct);
          const extra = added(turn, direct);
          spread.push(extra);
          rows.push([
            `${concurrency}`,
            `${r + 1}`,
            String(turn.count),
            `${ms(turn.p50)} / ${ms(turn.p99)}`,
            `${ms(accepted.p50)} / ${ms(accepted.p99)}`,
            `${ms(direct.p50)} / ${ms(direct.p99)}`,
            `**${ms(extra.p50)} / ${ms(extra.p99)}**`,
          ]);
          ctx.log(`turn-overhead c=${concurrency} round ${r + 1}: added p50 ${ms(extra.p50)} p99 ${ms(extra.p99)}`);
        }
        const p50s = spread.map((s) => s.p50).sort((a, b) => a - b);
        const p99s = spread.map((s) => s.p99).sort((a, b) => a - b);
        metrics[`addedP50MsC${concurrency}`] = p50s[Math.floor(p50s.length / 2)] as number;
        metrics[`addedP99MsC${concurrency}`] = p99s[Math.floor(p99s.length / 2)] as number;
      }
    } finally {
      await stack.close();
    }
    const cpu = process.cpuUsage(cpuStart);
    // The same turns on databases opened two other ways: as `--sqlite-synchronous normal` opens
    // them (no sync at all: what the syncs cost a turn), and with SQLite's own fsync inside every
    // COMMIT, as before group commit (what group commit saves).
    let owner = size.rounds * CONCURRENCY.length;
    for (const variant of VARIANTS) {
      const other = await openTurnStack(
        await openDatabase(join(ctx.dir, `turns-${variant.file}.sqlite`), variant.options),
        tokens,
      );
      try {
        await other.app.start();
        for (const concurrency of variant.concurrency) {
          const spread: number[] = [];
          for (let r = 0; r < size.rounds; r += 1) {
            const s = await round(
              other,
              `turn-token-${owner}`,
              owner,
              concurrency,
              size.samples[concurrency],
              size.warmup,
            );
            owner += 1;
            const turn = summarize(s.turns);
            const accepted = summarize(s.accepted);
            const direct = summarize(s.direct);
            const extra = added(turn, direct);
            spread.push(extra.p50);
            rows.push([
              `${concurrency}, ${variant.label}`,
              `${r + 1}`,
              String(turn.count),
              `${ms(turn.p50)} / ${ms(turn.p99)}`,
              `${ms(accepted.p50)} / ${ms(accepted.p99)}`,
              `${ms(direct.p50)} / ${ms(direct.p99)}`,
              `**${ms(extra.p50)} / ${ms(extra.p99)}**`,
            ]);
            ctx.log(
              `turn-overhead ${variant.file} c=${concurrency} round ${r + 1}: added p50 ${ms(extra.p50)} p99 ${ms(extra.p99)}`,
            );
          }
          metrics[`addedP50Ms${variant.metric}C${concurrency}`] = spread.sort((a, b) => a - b)[
            Math.floor(spread.length / 2)
          ] as number;
        }
      } finally {
        await other.close();
      }
    }
    const cpuPerTurn = (cpu.user + cpu.system) / 1000 / Math.max(1, turnsRun);
    metrics.cpuMsPerTurn = cpuPerTurn;
    const profile = await profileTurnCommits(ctx.dir, size.counted);
    metrics.commitsPerTurn = profile.commitsPerTurn;
    metrics.readsPerTurn = profile.readsPerTurn;
    return {
      tables: [
        {
          header: [
            'Concurrent turns',
            'Round',
            'Samples',
            'Turn p50 / p99 (called → COMPLETED seen)',
            'Accepted → COMPLETED seen p50 / p99',
            'Direct call p50 / p99',
            'Added p50 / p99 (goal ≤ 3 / ≤ 10 ms)',
          ],
          rows,
        },
        {
          title: `Where the time of one turn goes (1 concurrent turn, ${breakdown.length} samples over every round)`,
          header: ['Step', 'p50', 'p99', 'mean'],
          rows: phaseRows(breakdown),
        },
        {
          title: `Commits of one turn (${profile.turns} sequential turns, counted on the connection; besides them ${profile.readsPerTurn.toFixed(1)} reads and ${profile.writesPerTurn.toFixed(1)} write statements per turn)`,
          header: ['Commit (tables its transaction wrote)', 'Count', 'Per turn'],
          rows: profile.rows,
        },
      ],
      method: [
        'One process serves the application as `serve` builds it (`createApp`, SQLite file, default runtimes, HTTP and graphql-ws on 127.0.0.1) with one agent on the `openai` runtime (`stream: true`) whose `baseUrl` is a local fake OpenAI-compatible provider (testkit `FakeChatProvider` behind `node:http` on 127.0.0.1) that answers every call at once with a 2-word streamed answer.',
        'A turn sample: `sendRequest` to one member over HTTP (`fetch`), then the wait until the COMPLETED `JobChanged` of its job arrives on a graphql-ws `teamEvents` subscription opened before the round (the client is a few lines over `ws`, in the same process). A direct sample: the same provider called with an OpenAI client built as the runtime builds it (`openai` SDK, streaming, `include_usage`), the stream read to its end. Turn and direct samples alternate (which goes first alternates too), so load drift hits both alike.',
        `"Added" is the turn's percentile minus the direct call's percentile of the same round. ${size.rounds} rounds per concurrency, each with a fresh owner and fresh teams of 2 members (requests alternate between them, a team is used for at most ${PER_TEAM}); ${size.warmup} warm-up samples per worker are not counted. At 8 concurrent turns, 8 workers each run their own turn-then-direct loop (admission: 8 slots, none reserved for other owners).`,
        'The main rows run on a database opened as `serve` opens it: WAL with group commit (a commit answers only after one `fdatasync` of the log, run off the event loop and shared by the commits made while it ran; `src/storage/sqlite-wal-sync.ts`). After them, the same turns run on two more databases: `synchronous=normal` opened as `--sqlite-synchronous normal` opens it (no sync at all; a process crash still loses nothing, a power loss may lose the last commits: docs/deployment.md), and "fsync inside COMMIT", SQLite\'s own `synchronous=FULL` as the server used before group commit (each COMMIT syncs the log while the event loop waits).',
        `Commit profile: a separate run of ${size.counted} sequential turns on a connection with the same pragmas that counts every COMMIT at execution time (labelled by the tables its transaction wrote) and every write outside a transaction (an autocommit); a transaction without writes costs no fsync.`,
        'The breakdown stamps `performance.now()` in the same process: the commit of each batch of events naming the job (an `events` listener of `createApp`, called right after COMMIT), the runtime `start` and `poll` calls (a wrapper around the `openai` runtime), the provider receiving the request and finishing its answer, and the subscriber receiving the frame. "CPU per turn" is the process CPU (`process.cpuUsage`, server, provider and client together) over all turns and direct calls, divided by the turns.',
      ],
      notes: [
        `CPU per turn (server + provider + client, direct calls included): ${ms(cpuPerTurn)}. One raw single-row commit (WAL, SQLite's own synchronous=FULL) took ${ms(profile.rawCommitMs)} on this disk right after the profile; with group commit that sync runs off the event loop, once per group of commits.`,
      ],
      metrics,
    };
  },
};
