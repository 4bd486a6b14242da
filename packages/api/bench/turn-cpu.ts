import { Session } from 'node:inspector/promises';
import { BUNDLED } from './harness/bench-paths.js';
import { withSourceUrls } from './harness/profile-sources.js';
import type { TurnTrace } from './harness/turn-stack.js';
import type { TurnSample } from './turn-user-process.js';

/** The parts of a V8 CPU profile read here (`Profiler.stop`; times in microseconds, monotonic). */
export interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string };
    readonly children?: readonly number[];
  }[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Sampling interval of the profiled round, in microseconds (V8's default is 1,000). */
const INTERVAL_US = 100;

/** Samples this process's main thread while `work` runs. */
export async function profiled<T>(work: () => Promise<T>): Promise<{ result: T; profile: CpuProfile }> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: INTERVAL_US });
    await session.post('Profiler.start');
    let result: T;
    try {
      result = await work();
    } catch (error) {
      // Stopped when the work failed too, so the profiler never runs on behind the benchmark.
      await session.post('Profiler.stop').catch(() => undefined);
      throw error;
    }
    const { profile } = await session.post('Profiler.stop');
    // Bundled (`pnpm bench`), frames name the bundle's chunks: named by their sources instead.
    const read = profile as unknown as CpuProfile;
    return { result, profile: BUNDLED ? withSourceUrls(read) : read };
  } finally {
    session.disconnect();
  }
}

/** The serial steps of one turn the CPU is cut by: each runs from one stamp to the next. */
export const CPU_STEPS = [
  '`sendRequest` called → enqueue committed',
  'enqueue committed → runtime `start` entered',
  'runtime `start` → provider received the request',
  'provider received → provider finished the answer',
  'provider finished → last runtime `poll`',
  'last `poll` → completion committed',
  'completion committed → subscriber saw COMPLETED',
] as const;

/** What the samples outside every turn's steps are (the direct call, the client's bookkeeping, background work). */
const BETWEEN = 'between turns (the direct call, background work)';

/**
 * The stamps that bound {@link CPU_STEPS} for one turn (milliseconds, monotonic), or null when one
 * is missing; the same cuts as `phasesOf` (`turn-phases.ts`).
 */
export function turnBounds(trace: TurnTrace, sample: TurnSample): number[] | null {
  const commits = trace.commits.map((commit) => commit.at);
  const completion = commits.filter((at) => at <= sample.seen).at(-1);
  const poll = completion === undefined ? undefined : trace.polls.filter((at) => at <= completion).at(-1);
  const bounds = [
    sample.called,
    commits[0],
    trace.start,
    sample.provider?.receivedAt,
    sample.provider?.answeredAt,
    poll,
    completion,
    sample.seen,
  ];
  if (bounds.some((at) => at === undefined || !Number.isFinite(at))) return null;
  const ordered = bounds as number[];
  // A turn whose stamps are out of order (a retried start, say) is left out rather than misread.
  for (let i = 1; i < ordered.length; i += 1) if ((ordered[i] as number) < (ordered[i - 1] as number)) return null;
  return ordered;
}

/** Where a sample's time went, by its leaf frame (the function running when it was taken). */
export const CATEGORIES = [
  'SQLite',
  'Kysely',
  'Agent Teams code',
  'GraphQL, Yoga, graphql-ws',
  'model call client',
  'Node HTTP, sockets, streams',
  'async context hooks',
  'GC',
  'other',
] as const;

type Category = (typeof CATEGORIES)[number] | 'idle';

/** better-sqlite3's native calls (their frames have no URL). */
const SQLITE_NATIVE = new Set(['run', 'all', 'get', 'iterate', 'exec', 'prepare', 'pragma']);
/** Native frames of Node's socket writes and reads. */
const IO_NATIVE = new Set([
  'writev',
  'writeBuffer',
  'writeUtf8String',
  'writeLatin1String',
  'writeAsciiString',
  'onStreamRead',
]);

/** The category of one frame (see {@link CATEGORIES}). */
export function categoryOf(frame: { readonly functionName: string; readonly url: string }): Category {
  const { functionName: name, url } = frame;
  if (name === '(idle)') return 'idle';
  if (name === '(garbage collector)') return 'GC';
  if (url === '') {
    if (SQLITE_NATIVE.has(name)) return 'SQLite';
    if (IO_NATIVE.has(name)) return 'Node HTTP, sockets, streams';
    return 'other';
  }
  // The statement cache's wrappers only call through; V8 puts much of the native call's time on
  // the calling frame when that frame is optimized code, so they count as SQLite.
  if (url.endsWith('storage/sqlite-statement-cache.ts') && SQLITE_NATIVE.has(name)) return 'SQLite';
  // The model call's own transport and SSE reading (since the twentieth pass, in place of the
  // `openai` client and fetch) count with the client they replaced, so the column compares.
  if (/runtimes\/openai\/(provider-http|sse-reader)\.ts|eventsource-parser/.test(url)) return 'model call client';
  // Our own modules before the libraries' patterns: `runtimes/openai/…` or `run-graphql.ts` are ours.
  if (/packages\/(api|core)\/(src|dist)\//.test(url) && !url.includes('node_modules')) return 'Agent Teams code';
  if (url.includes('/kysely')) return 'Kysely';
  if (/undici|internal\/webstreams|\/openai@|abort_controller|node-fetch/.test(url)) {
    return 'model call client';
  }
  if (/graphql|@envelop|@whatwg-node|dataloader|@pothos|\/ws@|\/ws\/lib/.test(url)) return 'GraphQL, Yoga, graphql-ws';
  if (url.includes('async_hooks')) return 'async context hooks';
  if (/^node:(_http_|net|internal\/streams|internal\/stream_base|events|buffer|internal\/http|stream)/.test(url)) {
    return 'Node HTTP, sockets, streams';
  }
  return 'other';
}

/** Milliseconds per turn by step and category (rows in {@link CPU_STEPS} order, then {@link BETWEEN}). */
export interface CpuBySteps {
  readonly turns: number;
  /** Main-thread busy time per turn over every step (idle and the time between turns excluded). */
  readonly busyMsPerTurn: number;
  readonly rows: string[][];
  readonly header: string[];
}

/**
 * Cuts the profile's samples by the turns' steps: each sample's interval goes to the step its
 * time falls in (or to the time between turns) and to its leaf frame's category.
 */
export function cpuBySteps(profile: CpuProfile, turns: readonly number[][]): CpuBySteps {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  // Each step as [from, to, index] in microseconds, sorted by start: the turns do not overlap.
  const spans = turns
    .flatMap((bounds) => bounds.slice(0, -1).map((from, i) => [from * 1000, (bounds[i + 1] as number) * 1000, i]))
    .sort((a, b) => (a[0] as number) - (b[0] as number));
  const steps = CPU_STEPS.length;
  const table = Array.from({ length: steps + 1 }, () => new Map<Category, number>());
  let at = profile.startTime;
  let span = 0;
  for (let i = 0; i < profile.samples.length; i += 1) {
    at += profile.timeDeltas[i] ?? 0;
    // A sample's weight is the interval up to the next one (the last sample weighs nothing).
    const weight = profile.timeDeltas[i + 1] ?? 0;
    while (span < spans.length && (spans[span]?.[1] as number) <= at) span += 1;
    const current = spans[span];
    const step = current !== undefined && (current[0] as number) <= at ? (current[2] as number) : steps;
    const frame = frames.get(profile.samples[i] as number);
    const category = frame === undefined ? 'other' : categoryOf(frame);
    const row = table[step] as Map<Category, number>;
    row.set(category, (row.get(category) ?? 0) + weight);
  }
  const count = Math.max(1, turns.length);
  const perTurn = (us: number | undefined) => ((us ?? 0) / 1000 / count).toFixed(2);
  const busyOf = (row: Map<Category, number>) =>
    [...row].reduce((sum, [category, us]) => (category === 'idle' ? sum : sum + us), 0);
  const rows = table.map((row, i) => [
    i < steps ? (CPU_STEPS[i] as string) : BETWEEN,
    perTurn(busyOf(row)),
    ...CATEGORIES.map((category) => perTurn(row.get(category))),
    perTurn(row.get('idle')),
  ]);
  const busy = table.slice(0, steps).reduce((sum, row) => sum + busyOf(row), 0);
  return {
    turns: turns.length,
    busyMsPerTurn: busy / 1000 / count,
    rows,
    header: ['Step (ms per turn)', 'busy', ...CATEGORIES, 'idle'],
  };
}

/** The method paragraph of the CPU-by-step table, for a round of `turns` profiled turns. */
export function cpuStepsMethod(turns: number): string {
  return `CPU by step: after the main rounds, one more round of ${turns} sequential turns (a fresh owner, not in the tables above) runs under V8's sampling profiler (\`node:inspector\`, a sample every 100 µs of the server's main thread). Each sample's interval goes to the step of the turn its time falls in (the same stamps as the breakdown above, cut into the serial steps from call to COMPLETED seen; the mutation's answer runs beside them) and to the category of the function running when it was taken: SQLite is better-sqlite3's native calls (a COMMIT's log writes and sync included), Kysely its query building and driver, Agent Teams code our own modules, the model call client its transport and SSE reading (\`provider-http.ts\`, \`sse-reader.ts\`, \`eventsource-parser\`; before the twentieth pass the \`openai\` SDK, fetch (undici) and web streams, which still count here), Node HTTP the \`node:http\`, socket and stream modules and native socket writes, async context hooks the promise hooks of \`AsyncLocalStorage\`. Idle is the event loop waiting; "busy" is the rest. The profiler costs time too, so the step times of this round are longer than in the rounds above; read the columns as shares.`;
}

/** The report table of {@link cpuBySteps}. */
export function cpuStepsTable(steps: CpuBySteps): { title: string; header: string[]; rows: string[][] } {
  return {
    title: `Where the server's main thread spends each step (1 concurrent turn, ${steps.turns} profiled turns; ms per turn, ${steps.busyMsPerTurn.toFixed(2)} ms busy from call to COMPLETED seen)`,
    header: steps.header,
    rows: steps.rows,
  };
}
