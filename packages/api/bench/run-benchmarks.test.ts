import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readSection, replaceSection } from './harness/markdown.js';
import { runBenchmarks } from './harness/run-all.js';
import { percentile, summarize } from './harness/stats.js';
import { BENCHMARKS } from './registry.js';
import { parseBenchArgs } from './run-benchmarks.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-bench-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const quiet = () => {};

/**
 * The foundation's benchmarks, the log frames, the in-process history read, the job pages and
 * the member statuses, run on the tiny scale in every `pnpm test`. Later benchmarks in the
 * registry (live fan-out, ...) spawn servers and clients, too slow for a smoke run on 2 cores.
 */
const SMOKE = BENCHMARKS.filter((benchmark) =>
  [
    'dispatch-latency',
    'engine-throughput',
    'engine-floor',
    'log-frames',
    'planning-pass',
    'history-read',
    'job-pages',
    'member-status',
  ].includes(benchmark.name),
);

describe('pnpm bench harness', () => {
  it('runs every benchmark on a tiny configuration and rewrites only the marked sections', async () => {
    const doc = join(dir, 'benchmarks.md');
    const later = replaceSection('# Benchmarks\n\nHand-written intro.\n', 'later-issue', 'kept as it was');
    writeFileSync(doc, later);

    const { reports } = await runBenchmarks({
      benchmarks: SMOKE,
      scale: 'tiny',
      docPath: doc,
      print: quiet,
      tempRoot: dir,
    });

    const dispatch = reports.get('dispatch-latency')?.metrics;
    expect(dispatch?.samples).toBe(5);
    expect(dispatch?.p50Ms).toBeGreaterThan(0);
    expect(dispatch?.p99Ms).toBeGreaterThanOrEqual(dispatch?.p50Ms ?? Number.NaN);
    const engine = reports.get('engine-throughput')?.metrics;
    expect(engine?.liveCompleted).toBe(16);
    expect(engine?.drainCompleted).toBe(16);
    expect(engine?.fullCompleted).toBe(16);
    expect(engine?.rawCommitsPerSecond).toBeGreaterThan(0);
    expect(engine?.liveJobsPerSecond).toBeGreaterThan(0);
    // Jobs that end together share their commits (decision 0224): fewer than one per job, but
    // every job's writes were committed by some commit.
    expect(engine?.commitsPerJob).toBeGreaterThan(0);
    expect(engine?.commitsPerJob).toBeLessThanOrEqual(1.5);
    // Both recorded runs were replayed to the end (a call turning out otherwise fails the section).
    const floor = reports.get('engine-floor')?.metrics;
    expect(floor?.drainCallsPerJob).toBeGreaterThan(5);
    expect(floor?.liveCallsPerJob).toBeGreaterThan(floor?.drainCallsPerJob ?? Number.NaN);
    expect(floor?.drainReplayCpuMs).toBeGreaterThan(0);
    // Every counted job's two COMMITs were read back from the log, each frame named by its B-tree.
    const frames = reports.get('log-frames')?.metrics;
    expect(frames?.jobs).toBe(4);
    expect(frames?.commits).toBeGreaterThanOrEqual(8);
    expect(frames?.framesPerJob).toBeGreaterThan(10);
    expect(frames?.trees).toBeGreaterThan(10);
    const planning = reports.get('planning-pass')?.metrics;
    expect(planning?.admitted).toBe(16);
    expect(planning?.candidates).toBeGreaterThan(0);
    // Which index SQLite picks on 60 rows is its cost model's business; the plans must be there.
    expect(planning?.explainedQueries).toBeGreaterThanOrEqual(5);
    expect(planning?.nonPartialJobsAccess).toBeGreaterThanOrEqual(0);

    // Every sample of both reads ran (each conversation read once before counting, so kept reads are incremental).
    const history = reports.get('history-read')?.metrics;
    expect(history?.fullP50Ms_12).toBeGreaterThan(0);
    expect(history?.keptP50Ms_12).toBeGreaterThan(0);
    // Both members answered every send, each job kept its frozen input, and all three reads ran.
    const pages = reports.get('job-pages')?.metrics;
    expect(pages?.jobs).toBe(6);
    expect(pages?.inputKiB).toBeGreaterThan(6);
    expect(pages?.viewP50Ms).toBeGreaterThan(0);
    expect(pages?.wholeP50Ms).toBeGreaterThan(0);
    expect(pages?.graphqlP50Ms).toBeGreaterThan(0);
    // Every sample's two reads agreed (the benchmark throws otherwise) over 2 × 2 teams' history.
    const statuses = reports.get('member-status')?.metrics;
    expect(statuses?.jobs).toBe(80);
    expect(statuses?.nowP50Ms).toBeGreaterThan(0);
    expect(statuses?.beforeP50Ms).toBeGreaterThan(0);
    expect(statuses?.graphqlP50Ms).toBeGreaterThan(0);

    const written = readFileSync(doc, 'utf8');
    expect(written.startsWith('# Benchmarks')).toBe(true);
    expect(written).toContain('Hand-written intro.');
    expect(readSection(written, 'later-issue')).toBe('kept as it was');
    expect(readSection(written, 'header')).toContain('| SQLite |');
    for (const benchmark of SMOKE) {
      const section = readSection(written, benchmark.name);
      expect(section).toContain('| --- |');
      expect(section).toContain('Method:');
    }
    expect(readSection(written, 'planning-pass')).toContain('USING COVERING INDEX jobs_unfinished_');

    // --only reruns one benchmark: its section changes, every other byte outside it stays.
    const marked = replaceSection(written, 'planning-pass', 'stale');
    writeFileSync(doc, marked);
    await runBenchmarks({
      benchmarks: SMOKE,
      only: ['planning-pass'],
      scale: 'tiny',
      docPath: doc,
      print: quiet,
      tempRoot: dir,
    });
    const rerun = readFileSync(doc, 'utf8');
    expect(readSection(rerun, 'planning-pass')).toContain('Method:');
    expect(replaceSection(rerun, 'planning-pass', 'stale')).toBe(marked);
  }, 180_000);

  it('relays every streamed token to every subscriber on the tiny token-relay scale', async () => {
    const relay = BENCHMARKS.filter((benchmark) => benchmark.name === 'token-relay');
    const doc = join(dir, 'relay.md');
    const { reports } = await runBenchmarks({
      benchmarks: relay,
      scale: 'tiny',
      docPath: doc,
      print: quiet,
      tempRoot: dir,
    });
    const m = reports.get('token-relay')?.metrics ?? {};
    // Three phases (active only; the bare floor relay; active + idle), each: every delta relayed
    // once, each to every subscriber.
    for (const phase of ['active', 'floor', 'idle']) {
      expect(m[`${phase}Sent`]).toBeGreaterThan(0);
      expect(m[`${phase}Relayed`]).toBe(m[`${phase}Sent`]);
      expect(m[`${phase}Deliveries`]).toBe(m[`${phase}Expected`]);
      expect(m[`${phase}MinPerSocket`]).toBe(m.chunks);
    }
    expect(m.errors).toBe(0);
    expect(m.unexpectedIdleDeliveries).toBe(0);
    expect(readSection(readFileSync(doc, 'utf8'), 'token-relay')).toContain('Method:');
  }, 180_000);

  it('registers every benchmark once, under a name usable as a section marker', () => {
    const names = BENCHMARKS.map((benchmark) => benchmark.name);
    expect(SMOKE).toHaveLength(8);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9-]*$/);
  });

  it('rejects an unknown benchmark name before running anything', async () => {
    const doc = join(dir, 'unknown.md');
    await expect(
      runBenchmarks({ benchmarks: BENCHMARKS, only: ['no-such-bench'], scale: 'tiny', docPath: doc, print: quiet }),
    ).rejects.toThrow(/unknown benchmark/);
    expect(() => readFileSync(doc)).toThrow();
  });

  it('parses the pnpm command line, ignoring "--" separators', () => {
    expect(parseBenchArgs(['--', '--only', 'planning-pass,dispatch-latency', '--scale=tiny', '--no-write'])).toEqual({
      only: ['planning-pass', 'dispatch-latency'],
      scale: 'tiny',
      docPath: null,
    });
    expect(() => parseBenchArgs(['--scale', 'huge'])).toThrow(/full or tiny/);
    expect(() => parseBenchArgs(['--frobnicate'])).toThrow(/unknown argument/);
  });

  it('reports nearest-rank percentiles that are real samples', () => {
    const samples = Array.from({ length: 300 }, (_, i) => 300 - i);
    const sorted = [...samples].sort((a, b) => a - b);
    expect(percentile(sorted, 50)).toBe(150);
    expect(percentile(sorted, 99)).toBe(297);
    expect(summarize(samples)).toMatchObject({ count: 300, min: 1, max: 300, p50: 150, p99: 297 });
  });
});
