import { join } from 'node:path';
import { type OpenDatabaseOptions, openDatabase } from '../src/storage/open-database.js';
import { BenchChild } from './harness/bench-child.js';
import type { BenchContext, Benchmark, BenchReport } from './harness/benchmark.js';
import { statementHeader } from './harness/statement-times.js';
import { ms } from './harness/stats.js';
import { FULL_ANSWER_BYTES, openTurnStack, type RoundAnswer } from './harness/turn-stack.js';
import { pauseNote, pauseTable, profileTurnCommits } from './turn-commits.js';
import { type CpuBySteps, cpuBySteps, cpuStepsMethod, cpuStepsTable, profiled } from './turn-cpu.js';
import { type Phases, phaseRows } from './turn-phases.js';
import { medianOf, PER_TEAM, round, roundRow, saturationNote, warmUp, warmupTokens } from './turn-round.js';

/**
 * Per concurrency: counted samples per worker and uncounted warm-up samples per worker; the
 * process's uncounted turns before the main rows, and after how many of them the fresh-process row
 * is measured.
 */
const SIZES = {
  full: {
    rounds: 3,
    samples: { 1: 120, 8: 30 },
    warmup: 8,
    counted: 40,
    processWarmup: 3_200,
    freshAfter: 400,
    profiled: 80,
    pauseSamples: 100,
  },
  tiny: {
    rounds: 1,
    samples: { 1: 4, 8: 2 },
    warmup: 1,
    counted: 3,
    processWarmup: 2,
    freshAfter: 1,
    profiled: 3,
    pauseSamples: 3,
  },
} as const;
const CONCURRENCY = [1, 8] as const;

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
    label: '`--sqlite-synchronous group`',
    file: 'group',
    metric: 'Group',
    options: { sqliteSynchronous: 'group' },
    concurrency: [1, 8],
  },
  {
    label: `full answers (${FULL_ANSWER_BYTES.toLocaleString('en-US')} bytes)`,
    file: 'full',
    metric: 'Full',
    options: {},
    concurrency: [1],
    answer: 'full',
  },
] as const satisfies readonly {
  label: string;
  file: string;
  metric: string;
  options: OpenDatabaseOptions;
  concurrency: readonly (typeof CONCURRENCY)[number][];
  answer?: RoundAnswer;
}[];

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
    for (const [token, owner] of warmupTokens(size.freshAfter, size.processWarmup - size.freshAfter))
      tokens.set(token, owner);
    tokens.set('turn-token-fresh', 'turn-owner-fresh');
    tokens.set('turn-token-profiled', 'turn-owner-profiled');
    // The user's side (provider and client) runs in its own process, off the server's event loop.
    const user = BenchChild.fork('turn-overhead/user', 'turn-user-process.ts');
    try {
      const { baseUrl } = await user.request<{ type: 'started'; baseUrl: string }>(
        { type: 'start' },
        'started',
        60_000,
      );
      return await measureAll(ctx, size, tokens, user, baseUrl);
    } finally {
      await user.close();
    }
  },
};

/** Every round of the section, then the commit profile; the report. */
async function measureAll(
  ctx: BenchContext,
  size: (typeof SIZES)[keyof typeof SIZES],
  tokens: ReadonlyMap<string, string>,
  user: BenchChild,
  baseUrl: string,
): Promise<BenchReport> {
  const stack = await openTurnStack(await openDatabase(join(ctx.dir, 'turns.sqlite')), tokens, baseUrl);
  const rows: string[][] = [];
  const metrics: Record<string, number> = {};
  const breakdown: Phases[] = [];
  let cpuStart = process.cpuUsage();
  let cpuStop: NodeJS.CpuUsage | null = null;
  let cpuSteps: CpuBySteps | null = null;
  let turnsRun = 0;
  try {
    await stack.app.start();
    // Uncounted turns first: code that runs about once per turn is optimized by V8 only after
    // thousands of calls, so a fresh process keeps compiling (and runs code not yet optimized)
    // for its first few thousand turns. One round measured early in that, then the main rows on
    // a server that has settled.
    const next = await warmUp(stack, user, size.freshAfter);
    const fresh = roundRow(
      `1, a fresh process (after ${size.freshAfter} turn${size.freshAfter === 1 ? '' : 's'})`,
      1,
      await round(stack, user, 'turn-token-fresh', 'fresh', 1, size.samples[1], size.warmup),
    );
    await warmUp(stack, user, size.processWarmup - size.freshAfter, next);
    cpuStart = process.cpuUsage();
    let owner = 0;
    for (const concurrency of CONCURRENCY) {
      const count = size.samples[concurrency];
      const spread: { p50: number; p99: number; directP50: number }[] = [];
      const cpuBefore = process.cpuUsage();
      const wallBefore = performance.now();
      let turnsHere = 0;
      for (let r = 0; r < size.rounds; r += 1) {
        const s = await round(stack, user, `turn-token-${owner}`, owner, concurrency, count, size.warmup);
        owner += 1;
        turnsRun += (count + size.warmup) * concurrency;
        turnsHere += (count + size.warmup) * concurrency;
        if (concurrency === 1) breakdown.push(...s.phases);
        const extra = roundRow(`${concurrency}`, r + 1, s);
        spread.push(extra);
        rows.push(extra.row);
        ctx.log(`turn-overhead c=${concurrency} round ${r + 1}: added p50 ${ms(extra.p50)} p99 ${ms(extra.p99)}`);
      }
      const used = process.cpuUsage(cpuBefore);
      metrics[`cpuMsPerTurnC${concurrency}`] = (used.user + used.system) / 1000 / Math.max(1, turnsHere);
      metrics[`serverCoresC${concurrency}`] = (used.user + used.system) / 1000 / (performance.now() - wallBefore);
      metrics[`directP50MsC${concurrency}`] = medianOf(spread.map((s) => s.directP50));
      metrics[`addedP50MsC${concurrency}`] = medianOf(spread.map((s) => s.p50));
      metrics[`addedP99MsC${concurrency}`] = medianOf(spread.map((s) => s.p99));
    }
    rows.push(fresh.row);
    metrics.addedP50MsFresh = fresh.p50;
    cpuStop = process.cpuUsage(cpuStart);
    // After the measured rounds, so the profiler's own cost is in none of them.
    const { result, profile } = await profiled(() =>
      round(stack, user, 'turn-token-profiled', 'profiled', 1, size.profiled, 0),
    );
    cpuSteps = cpuBySteps(profile, result.bounds);
  } finally {
    await stack.close();
  }
  const cpu = cpuStop ?? process.cpuUsage(cpuStart);
  // The same turns on databases opened two other ways: as `--sqlite-synchronous normal` opens
  // them (no sync at all: what the syncs cost a turn), and with SQLite's own fsync inside every
  // COMMIT, as before group commit (what group commit saves).
  let owner = size.rounds * CONCURRENCY.length;
  for (const variant of VARIANTS) {
    const other = await openTurnStack(
      await openDatabase(join(ctx.dir, `turns-${variant.file}.sqlite`), variant.options),
      tokens,
      baseUrl,
    );
    try {
      await other.app.start();
      for (const concurrency of variant.concurrency) {
        const spread: number[] = [];
        for (let r = 0; r < size.rounds; r += 1) {
          const s = await round(
            other,
            user,
            `turn-token-${owner}`,
            owner,
            concurrency,
            size.samples[concurrency],
            size.warmup,
            'answer' in variant ? variant.answer : 'instant',
          );
          owner += 1;
          const extra = roundRow(`${concurrency}, ${variant.label}`, r + 1, s);
          spread.push(extra.p50);
          rows.push(extra.row);
          ctx.log(
            `turn-overhead ${variant.file} c=${concurrency} round ${r + 1}: added p50 ${ms(extra.p50)} p99 ${ms(extra.p99)}`,
          );
        }
        metrics[`addedP50Ms${variant.metric}C${concurrency}`] = medianOf(spread);
      }
    } finally {
      await other.close();
    }
  }
  const cpuPerTurn = (cpu.user + cpu.system) / 1000 / Math.max(1, turnsRun);
  metrics.cpuMsPerTurn = cpuPerTurn;
  const profile = await profileTurnCommits(ctx.dir, size.counted, size.pauseSamples);
  for (const cell of profile.afterPause) metrics[`rawCommitP50MsPause${cell.pauseMs}T${cell.tables}`] = cell.p50Ms;
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
        title: `Where the time of one turn goes (1 concurrent turn, ${breakdown.length} samples over every main round)`,
        header: ['Step', 'p50', 'p99', 'mean'],
        rows: phaseRows(breakdown),
      },
      ...(cpuSteps === null ? [] : [cpuStepsTable(cpuSteps)]),
      {
        title: `Commits of one turn (${profile.turns} sequential turns, counted on the connection; besides them ${profile.readsPerTurn.toFixed(1)} reads and ${profile.writesPerTurn.toFixed(1)} write statements per turn)`,
        header: ['Commit (tables its transaction wrote)', 'Count', 'Per turn'],
        rows: profile.rows,
      },
      { title: "The same turns' SQLite time by statement", header: statementHeader('turn'), rows: profile.statements },
      pauseTable(profile, size.pauseSamples),
    ],
    method: [
      "One process serves the application as `serve` builds it (`createApp`, SQLite file, default runtimes, HTTP and graphql-ws on 127.0.0.1) with one agent on the `openai` runtime (`stream: true`) whose `baseUrl` is a local fake OpenAI-compatible provider (testkit `FakeChatProvider` behind `node:http` on 127.0.0.1) that answers every call at once with a 2-word streamed answer. The provider and the client run in a second process (`bench/turn-user-process.ts`), as a remote provider and a user's browser would: until 2026-12-01 (the figures in the hand-written part below) they ran in the server's own process, whose event loop then also carried the client's and the provider's work.",
      'A turn sample: `sendRequest` to one member over HTTP (through the runtime transport, `ProviderHttp`: `node:http` over kept connections, as the direct call below; until the forty-seventh pass over `fetch`, which on this class of machine took 0.74 ms p50 for a POST that `node:http` made in 0.35 ms), then the wait until the COMPLETED `JobChanged` of its job arrives on a graphql-ws `teamEvents` subscription opened before the round (the client is a few lines over `ws`). A direct sample: the same provider called with the model call the runtime makes (`callModel` over its own connection pool, streaming, `include_usage`; until the twentieth pass both used the `openai` SDK over fetch), the stream read to its end. Turn and direct samples alternate (which goes first alternates too), so load drift hits both alike.',
      `"Added" is the turn's percentile minus the direct call's percentile of the same round. ${size.rounds} rounds per concurrency, each with a fresh owner and fresh teams of 2 members (requests alternate between them, a team is used for at most ${PER_TEAM}); ${size.warmup} warm-up samples per worker are not counted, and before the main rows the process runs ${size.processWarmup} uncounted sequential turns (and the fresh-process round below): code that runs about once per turn is optimized by V8 only after thousands of calls, so a fresh process keeps compiling, and runs code not yet optimized, for its first few thousand turns (with \`--trace-opt\` on 2026-12-05, after 400 turns its optimizing compiler still finished about 110 functions per round of 128 turns and added p50 was 6.7–7.7 ms; after 3,200 turns it finished 2–14 per round and added p50 was 5.3 ms). The row "a fresh process" is one round measured after the first ${size.freshAfter} of those turns (until 2026-12-05 the main rows ran after a warm-up of 400 turns), for what a server shows in its first minutes; its database then also holds fewer finished jobs than the main rows' (about 3,300 fewer), which if anything favours it. At 8 concurrent turns, 8 workers each run their own turn-then-direct loop (admission: 8 slots, none reserved for other owners).`,
      'The main rows run on a database opened as `serve` opens it by default: WAL with `synchronous=FULL` (SQLite syncs the log inside every COMMIT while the event loop waits). After them, the same turns run on two more databases: `synchronous=normal` opened as `--sqlite-synchronous normal` opens it (no sync at all; a process crash still loses nothing, a power loss may lose the last commits: docs/deployment.md), and group commit as `--sqlite-synchronous group` opens it (a commit answers only after one `fdatasync` of the log, run off the event loop and shared by the commits made while it ran; `src/storage/sqlite-wal-sync.ts`).',
      `"Full answers": the same turns on a fourth database opened as \`serve\` opens it, the provider answering every call (the turns' and the direct ones) with ${FULL_ANSWER_BYTES.toLocaleString('en-US')} bytes instead of two words: each team's newest records then fill its shared context, so every frozen turn carries about 23 KB of it, and each member's history grows by a full answer per turn (its calls send up to \`maxContextTokens\` of it, 24,000 estimated tokens), as with agents that write full answers. The direct call still sends one short message: the added time includes what sending the member's history costs.`,
      cpuStepsMethod(size.profiled),
      `Commit profile: a separate run of ${size.counted} sequential turns on a connection with the same pragmas that counts every COMMIT at execution time (labelled by the tables its transaction wrote) and every write outside a transaction (an autocommit); a transaction without writes costs no fsync. The same connection times every statement (\`engine-throughput\` says how), provider and client in the server's process.`,
      'The breakdown stamps the machine\'s monotonic clock (`process.hrtime`, the same in both processes): the commit of each batch of events naming the job (an `events` listener of `createApp`, called right after COMMIT), the runtime `start` and `poll` calls (a wrapper around the `openai` runtime), the provider receiving the request and finishing its answer, and the subscriber receiving the frame. "Server CPU per turn" is the server process\'s CPU (`process.cpuUsage`) over the main rounds, divided by their turns.',
    ],
    notes: [
      pauseNote(profile),
      saturationNote(metrics, CONCURRENCY[CONCURRENCY.length - 1] as number),
      `Server CPU per turn: ${ms(cpuPerTurn)} (${CONCURRENCY.map((c) => `${ms(metrics[`cpuMsPerTurnC${c}`] ?? 0)} at ${c} concurrent`).join(', ')}; the same sequential turns with provider and client in the server's process, in the commit profile's run: ${ms(profile.cpuMsPerTurn)} for all three). One raw single-row commit (WAL, synchronous=FULL) took ${ms(profile.rawCommitMs)} on this disk right after the profile.`,
    ],
    metrics,
  };
}
