import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What one fuzzer run reported. */
interface FuzzerRun {
  readonly status: number | null;
  readonly stats: Record<string, unknown>;
}

/** Figures of both fuzzers. */
export interface FuzzFigures {
  readonly runs: number;
  readonly ws: FuzzerRun;
  readonly http: FuzzerRun;
  readonly ok: boolean;
}

/** Runs one fuzzer test file through vitest with `runs` sequences; returns its exit status and figures. */
function runFuzzer(root: string, file: string, prefix: string, runs: number): FuzzerRun {
  const statsFile = join(tmpdir(), `agent-teams-${prefix.toLowerCase()}-${process.pid}.json`);
  console.log(`[chaos] ${file}: ${runs} sequences`);
  const run = spawnSync('pnpm', ['exec', 'vitest', 'run', file], {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      [`AGENT_TEAMS_${prefix}_FUZZ_RUNS`]: String(runs),
      [`AGENT_TEAMS_${prefix}_FUZZ_STATS_FILE`]: statsFile,
    },
  });
  let stats: Record<string, unknown> = {};
  try {
    stats = JSON.parse(readFileSync(statsFile, 'utf8')) as Record<string, unknown>;
    rmSync(statsFile, { force: true });
  } catch {
    // The run failed before writing its figures; the status says so.
  }
  return { status: run.status, stats };
}

/** The long runs of the WebSocket and HTTP fuzzers (`pnpm chaos`). */
export function runFuzzers(root: string, runs: number): FuzzFigures {
  const ws = runFuzzer(root, 'packages/api/test/live/ws-fuzz.test.ts', 'WS', runs);
  const http = runFuzzer(root, 'packages/api/test/http/http-fuzz.test.ts', 'HTTP', runs);
  return { runs, ws, http, ok: ws.status === 0 && http.status === 0 };
}

const counts = (record: unknown) =>
  Object.entries((record ?? {}) as Record<string, number>)
    .map(([key, n]) => `${key}: ${n}`)
    .join(', ') || 'n/a';
const seconds = (stats: Record<string, unknown>) =>
  typeof stats.durationMs === 'number' ? `${(stats.durationMs / 1000).toFixed(0)} s` : 'n/a';
const result = (run: FuzzerRun) => (run.status === 0 ? 'passed' : `failed (exit ${run.status})`);

/** The fuzz section of `docs/reliability.md`. */
export function fuzzSection(figures: FuzzFigures, started: Date): string {
  const { ws, http } = figures;
  return `## Fuzzers: the WebSocket and HTTP endpoints under hostile input

Run of ${started.toISOString()} (\`AGENT_TEAMS_CHAOS_PART=fuzz pnpm chaos\`). Short versions of both run in
\`pnpm test\`. The invariants are in the headers of \`packages/api/test/live/ws-fuzz.test.ts\` and
\`packages/api/test/http/http-fuzz.test.ts\`.

| Figure | WebSocket (model-based, real sockets) | HTTP (real server) |
| --- | --- | --- |
| Sequences (asked: ${figures.runs}) | ${ws.stats.sequences ?? 'n/a'} | ${http.stats.sequences ?? 'n/a'} |
| Commands / requests | ${ws.stats.commands ?? 'n/a'} | ${http.stats.requests ?? 'n/a'} |
| Subscriptions started / refused at a cap | ${ws.stats.subscriptions ?? 'n/a'} / ${ws.stats.refusedSubscriptions ?? 'n/a'} | |
| Close codes / HTTP statuses seen | ${counts(ws.stats.closes)} | ${counts(http.stats.statuses)} |
| Duration | ${seconds(ws.stats)} | ${seconds(http.stats)} |
| Result | ${result(ws)} | ${result(http)} |
`;
}
