import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CrashFigures, runCrashTest } from './crash-harness.js';
import { replaceSection } from './doc-sections.js';
import { backendKillSection, runBackendKills } from './pg-backend-kills.js';
import { type FuzzFigures, fuzzSection, runFuzzers } from './run-fuzzers.js';

/**
 * `pnpm chaos`: the long reliability run. The model-based scheduler test with 10,000 sequences,
 * then 200 SIGKILLs of the real server under the mixed workload (see `crash-harness.ts`);
 * the figures go to `docs/reliability.md`. Exit code 1 when any invariant was violated.
 *
 * Then the two fuzzers (WebSocket and HTTP, 5,000 sequences each, see `run-fuzzers.ts`), then
 * a minute of load on PostgreSQL while its backends are ended at random (`pg-backend-kills.ts`).
 *
 * Environment: `AGENT_TEAMS_CHAOS_KILLS` (200), `AGENT_TEAMS_CHAOS_SEED` (time-based),
 * `AGENT_TEAMS_MODEL_RUNS` (10,000), `AGENT_TEAMS_FUZZ_RUNS` (5,000 per fuzzer),
 * `AGENT_TEAMS_CHAOS_PG_SECONDS` (60), `AGENT_TEAMS_CHAOS_PART` (`crash`, `model`, `fuzz`,
 * `postgres` or all).
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const kills = Number(process.env.AGENT_TEAMS_CHAOS_KILLS ?? 200);
const seed = Number(process.env.AGENT_TEAMS_CHAOS_SEED ?? Date.now() % 1_000_000);
const modelRuns = Number(process.env.AGENT_TEAMS_MODEL_RUNS ?? 10_000);
/** Optional time budget of the crash part in minutes: it stops killing then and reports the kills done. */
const crashMinutes = process.env.AGENT_TEAMS_CHAOS_MINUTES ? Number(process.env.AGENT_TEAMS_CHAOS_MINUTES) : null;
/** `crash`, `model` or `fuzz` runs one part and keeps the other parts' sections of the document. */
const part = process.env.AGENT_TEAMS_CHAOS_PART ?? 'all';
const fuzzRuns = Number(process.env.AGENT_TEAMS_FUZZ_RUNS ?? 5_000);
const pgSeconds = Number(process.env.AGENT_TEAMS_CHAOS_PG_SECONDS ?? 60);
const docFile = join(root, 'docs/reliability.md');
/** Before the first report is written (top-level code below calls it). */
const CRASH_HEADING = '## Crash test: the real server, killed with SIGKILL';
const MODEL_ONLY = "model passed (the model part alone: the crash figures are the crash part's last run)";
const previous = (() => {
  try {
    return readFileSync(docFile, 'utf8');
  } catch {
    return '';
  }
})();
const dir = mkdtempSync(join(tmpdir(), 'agent-teams-chaos-'));

const started = new Date();

if (part === 'postgres') {
  const ok = await runPostgresPart(previous);
  process.exit(ok ? 0 : 1);
}

if (part === 'fuzz') {
  const fuzz = runFuzzers(root, fuzzRuns);
  writeFileSync(docFile, withFuzz(previous, fuzz));
  console.log(`[chaos] fuzzers: ${fuzz.ok ? 'passed' : 'FAILED'}; figures written to docs/reliability.md`);
  process.exit(fuzz.ok ? 0 : 1);
}

// The model-based test first (minutes), then the crash test (long: every kill restarts the server);
// the document is written after each part, so a long run already shows the model's figures.
if (part !== 'crash') console.log(`[chaos] model-based test, ${modelRuns} sequences`);
const statsFile = join(tmpdir(), `agent-teams-model-${process.pid}.json`);
const modelStart = Date.now();
const model =
  part === 'crash' || part === 'fuzz'
    ? { status: 0 }
    : spawnSync('pnpm', ['exec', 'vitest', 'run', 'packages/api/test/recovery/scheduler-model.test.ts'], {
        cwd: root,
        stdio: 'inherit',
        env: { ...process.env, AGENT_TEAMS_MODEL_RUNS: String(modelRuns), AGENT_TEAMS_MODEL_STATS_FILE: statsFile },
      });
const modelMs = Date.now() - modelStart;
let modelStats: Record<string, unknown> = {};
try {
  modelStats = JSON.parse(readFileSync(statsFile, 'utf8')) as Record<string, unknown>;
  rmSync(statsFile, { force: true });
} catch {
  // The test failed before writing its figures; the exit status says so below.
}
writeReport(null);
if (part === 'model') process.exit(model.status === 0 ? 0 : 1);

console.log(`[chaos] ${kills} kills, seed ${seed}`);
let crash: CrashFigures;
try {
  crash = await runCrashTest({
    database: join(dir, 'chaos.sqlite'),
    kills,
    seed,
    deadlineMs: crashMinutes === null ? undefined : Date.now() + crashMinutes * 60_000,
    log: (line) => console.log(`[chaos] ${line}`),
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`[chaos] crash test done: ${crash.violations.length} violations`);
let ok = writeReport(crash);
if (part === 'all') {
  const fuzz = runFuzzers(root, fuzzRuns);
  writeFileSync(docFile, withFuzz(readFileSync(docFile, 'utf8'), fuzz));
  ok &&= fuzz.ok;
  ok = (await runPostgresPart(readFileSync(docFile, 'utf8'))) && ok;
}
console.log(`[chaos] figures written to docs/reliability.md: ${ok ? 'ok' : 'VIOLATIONS'}`);

function phases(record: Record<string, number>): string {
  return Object.entries(record)
    .sort()
    .map(([phase, n]) => `${phase} ${n}`)
    .join(', ');
}

function crashSection(crash: CrashFigures | null): string {
  // The model part alone keeps the crash part's last figures (it used to write "running" over them).
  const from = previous.indexOf(CRASH_HEADING);
  const to = previous.indexOf('## Model-based test');
  if (crash === null && part === 'model' && from >= 0 && to > from) {
    return `${previous.slice(from + CRASH_HEADING.length, to).trim()}\n`;
  }
  if (crash === null) return `_Running (${kills} kills, seed ${seed})…_\n`;
  return `| Figure | Value |
| --- | --- |
| Seed | ${seed} |
| SIGKILLs (each followed by a restart on the same SQLite file) | ${crash.kills}${crash.kills < kills ? ` (asked: ${kills}; stopped at the ${crashMinutes}-minute budget)` : ''} |
| Accepted requests (the server answered \`sendRequest\`) | ${crash.acceptedRequests} |
| Owners (two teams each; the next owner's once one of them is full, 100 requests a team) | ${crash.owners} |
| Answers accepted / cancels / idempotent replays checked | ${crash.answers} / ${crash.cancels} / ${crash.replays} |
| Jobs at the end (requests, handoffs, receipts) | ${crash.jobs} (${crash.receipts} receipts) |
| Runtime runs at the end | ${crash.runs} |
| Database samples checked (every 25 ms) | ${crash.samples} |
| Most active jobs seen in one sample (limit 8) | ${crash.maxActiveSeen} |
| Final phases | ${phases(crash.finalPhases)} |
| Restart to listening (the first boot, which migrates, not counted): median / max | ${crash.restartMs.median} ms / ${crash.restartMs.max} ms |
| Final drain (answer everything, wait for every job to finish) | ${crash.drainMs} ms |
| Total | ${(crash.durationMs / 1000).toFixed(0)} s |
| Violations | ${crash.violations.length === 0 ? 'none' : crash.violations.map((v) => `\`${v}\``).join('<br>')} |
`;
}

/** Runs the PostgreSQL part and writes its section into `doc` (the document); true when its invariants held. */
async function runPostgresPart(doc: string): Promise<boolean> {
  console.log(`[chaos] PostgreSQL backends ended at random under load, ${pgSeconds} s`);
  const figures = await runBackendKills(pgSeconds, (line) => console.log(`[chaos] ${line}`));
  writeFileSync(docFile, replaceSection(doc, 'pg-backend-kills', backendKillSection(figures, started)));
  console.log(`[chaos] PostgreSQL part: ${figures.violations.length} violations`);
  return figures.violations.length === 0;
}

/** `doc` with its fuzz section replaced by this run's figures. */
function withFuzz(doc: string, fuzz: FuzzFigures): string {
  return replaceSection(doc, 'fuzz', fuzzSection(fuzz, started));
}

/** The sections other scripts own (fuzzers, soak, hand-written bounds), kept as they were. */
function keptSections(): string {
  const first = previous.indexOf('<!-- reliability:');
  return first < 0 ? '' : `\n${previous.slice(first)}`;
}

/** Writes `docs/reliability.md`; true when every invariant held in the parts that ran. */
function writeReport(crash: CrashFigures | null): boolean {
  const ok = (crash === null || crash.violations.length === 0) && model.status === 0;
  const report = `# Reliability figures

Written by \`pnpm chaos\` (\`packages/api/chaos/run-chaos.ts\`) and \`pnpm soak\`; each section between
\`reliability:NAME\` markers belongs to the script that writes it. The method and the invariants are
described in [the README](../README.md#restarts-and-crashes) and in
\`docs/decisions/0020-human-input-and-crash-recovery.md\`.

Run of ${started.toISOString()} on ${cpus().length} CPUs (load average when written:
${loadavg()
  .map((n) => n.toFixed(1))
  .join(
    ' / ',
  )}). Result: **${ok ? (crash === null ? (part === 'model' ? MODEL_ONLY : 'model passed; crash test running') : 'all invariants held') : 'INVARIANTS VIOLATED'}**.

${CRASH_HEADING}

${crashSection(crash)}
${modelSection()}${keptSections()}`;
  writeFileSync(docFile, report);
  return ok;
}

/** The model section: this run's figures, or the previous document's when only the crash part ran. */
function modelSection(): string {
  const kept = previous.indexOf('## Model-based test');
  const end = previous.indexOf('<!-- reliability:');
  if (part === 'crash' && kept >= 0) return `${previous.slice(kept, end < 0 ? undefined : end).trimEnd()}\n`;
  return `## Model-based test: scheduler and state machine

| Figure | Value |
| --- | --- |
| Sequences (fast-check) | ${modelStats.sequences ?? 'n/a'} (asked: ${modelRuns}) |
| Actions | ${modelStats.actions ?? 'n/a'} |
| Requests / answers | ${modelStats.requests ?? 'n/a'} / ${modelStats.answers ?? 'n/a'} |
| Scheduler crashes (dropped and rebuilt from the store) / racing second schedulers | ${modelStats.crashes ?? 'n/a'} / ${modelStats.races ?? 'n/a'} |
| Final phases | ${modelStats.finished ? phases(modelStats.finished as Record<string, number>) : 'n/a'} |
| Duration | ${(modelMs / 1000).toFixed(0)} s |
| Result | ${model.status === 0 ? 'passed' : `failed (exit ${model.status})`} |
`;
}
process.exit(ok ? 0 : 1);
