import { ACTIVE_PHASES, JobPhase, TERMINAL_PHASES } from '@agent-teams/core';
import { REACHABLE_PHASES } from '@agent-teams/testkit';
import type BetterSqlite3 from 'better-sqlite3';

const ACTIVE = new Set<string>(ACTIVE_PHASES);
const TERMINAL = new Set<string>(TERMINAL_PHASES);
const OWNING = new Set<string>([...ACTIVE_PHASES, JobPhase.WAITING_INPUT, JobPhase.ANSWERED]);

/** A request the crash workload sent and the server accepted. */
export interface Sent {
  readonly input: { teamId: string; memberIds: string[]; text: string; clientRequestId: string };
  readonly jobId: string;
  /** The bearer token it was sent with (its owner's). */
  readonly token: string;
}

/**
 * Reads the jobs table every few milliseconds (on its own read-only connection, while servers
 * are killed and restarted) and reports what no sample may ever show: a job moving against the
 * transition table, two jobs owning one conversation, more than 8 active jobs.
 */
export class InvariantSampler {
  samples = 0;
  maxActiveSeen = 0;
  readonly #phases = new Map<string, string>();
  readonly #violate: (message: string) => void;

  constructor(violate: (message: string) => void) {
    this.#violate = violate;
  }

  sample(observer: BetterSqlite3.Database): void {
    let rows: { id: string; phase: string; conversation_id: string }[];
    try {
      rows = observer.prepare('SELECT id, phase, conversation_id FROM jobs').all() as typeof rows;
    } catch {
      return; // the file is being recovered by a starting server; the next sample reads it
    }
    this.samples += 1;
    let active = 0;
    const owners = new Map<string, string>();
    for (const row of rows) {
      const before = this.#phases.get(row.id) ?? JobPhase.QUEUED;
      if (!REACHABLE_PHASES.get(before as JobPhase)?.has(row.phase as JobPhase)) {
        this.#violate(`job ${row.id} moved ${before} -> ${row.phase}`);
      }
      this.#phases.set(row.id, row.phase);
      if (ACTIVE.has(row.phase)) active += 1;
      if (OWNING.has(row.phase)) {
        const other = owners.get(row.conversation_id);
        if (other !== undefined) this.#violate(`conversation ${row.conversation_id} owned by ${other} and ${row.id}`);
        owners.set(row.conversation_id, row.id);
      }
    }
    this.maxActiveSeen = Math.max(this.maxActiveSeen, active);
    if (active > 8) this.#violate(`${active} active jobs in one sample`);
  }
}

/**
 * The checks at the end of a crash run: every accepted request present and terminal, no turn
 * started twice, no request with two receipts, nothing COMPLETED whose run did not complete.
 */
export function finalChecks(
  db: BetterSqlite3.Database,
  sent: readonly Sent[],
  violate: (message: string) => void,
): { jobs: number; runs: number; receipts: number; finalPhases: Record<string, number> } {
  const jobs = db.prepare('SELECT id, kind, phase, run_id FROM jobs').all() as {
    id: string;
    kind: string;
    phase: string;
    run_id: string | null;
  }[];
  const byId = new Map(jobs.map((job) => [job.id, job]));
  for (const { jobId } of sent) {
    const job = byId.get(jobId);
    if (!job) violate(`accepted request ${jobId} is missing`);
    else if (!TERMINAL.has(job.phase)) violate(`accepted request ${jobId} ended ${job.phase}`);
  }
  const finalPhases: Record<string, number> = {};
  for (const job of jobs) finalPhases[job.phase] = (finalPhases[job.phase] ?? 0) + 1;
  // No turn started twice: one run per job plus one per accepted answer, at most.
  const runsPerJob = db
    .prepare(
      `SELECT r.job_id AS job, count(*) AS runs,
              (SELECT count(*) FROM job_responses a WHERE a.job_id = r.job_id) AS answers
         FROM runtime_runs r GROUP BY r.job_id`,
    )
    .all() as { job: string; runs: number; answers: number }[];
  for (const row of runsPerJob) {
    if (row.runs > 1 + row.answers) violate(`job ${row.job} has ${row.runs} runs for ${row.answers} answers`);
  }
  const twice = db
    .prepare(
      `SELECT parent_id AS parent, count(*) AS n FROM jobs WHERE kind = 'RECEIPT' GROUP BY parent_id HAVING count(*) > 1`,
    )
    .all() as { parent: string; n: number }[];
  for (const row of twice) violate(`request ${row.parent} has ${row.n} receipts`);
  // Nothing reported complete that did not complete.
  const runState = db.prepare('SELECT state FROM runtime_runs WHERE run_id = ?');
  for (const job of jobs) {
    if (job.phase !== JobPhase.COMPLETED) continue;
    const run = job.run_id === null ? undefined : (runState.get(job.run_id) as { state: string } | undefined);
    if (run?.state !== 'completed') violate(`job ${job.id} is COMPLETED but its run is ${run?.state ?? 'missing'}`);
  }
  const runs = (db.prepare('SELECT count(*) AS n FROM runtime_runs').get() as { n: number }).n;
  const receipts = jobs.filter((job) => job.kind === 'RECEIPT').length;
  return { jobs: jobs.length, runs, receipts, finalPhases };
}
