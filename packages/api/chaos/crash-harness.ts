import { ACTIVE_PHASES, JobPhase, TERMINAL_PHASES } from '@agent-teams/core';
import { REACHABLE_PHASES } from '@agent-teams/testkit';
import BetterSqlite3 from 'better-sqlite3';
import { gql, type ServerProcess, startServer, stopServer } from './crash-server.js';

/** Options of {@link runCrashTest}. */
export interface CrashOptions {
  /** SQLite file (a fresh temp file; the harness never deletes it). */
  readonly database: string;
  /** How many times the server is killed with SIGKILL. */
  readonly kills: number;
  readonly seed: number;
  /** Stop killing at this time (epoch ms) even if fewer than `kills` were done; the drain still runs. */
  readonly deadlineMs?: number;
  /** Longest life of one server before its kill, in ms (a random moment below it). */
  readonly maxLifeMs?: number;
  readonly log?: (line: string) => void;
}

/** What a crash run measured, and the invariant violations it found (empty when all held). */
export interface CrashFigures {
  kills: number;
  acceptedRequests: number;
  answers: number;
  cancels: number;
  replays: number;
  jobs: number;
  runs: number;
  receipts: number;
  samples: number;
  maxActiveSeen: number;
  finalPhases: Record<string, number>;
  restartMs: { median: number; max: number };
  drainMs: number;
  durationMs: number;
  violations: string[];
}

const ACTIVE = new Set<string>(ACTIVE_PHASES);
const TERMINAL = new Set<string>(TERMINAL_PHASES);
const OWNING = new Set<string>([...ACTIVE_PHASES, JobPhase.WAITING_INPUT, JobPhase.ANSWERED]);

/** A small seeded PRNG (mulberry32), so a failing run can be replayed with its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CREATE = `mutation($input: CreateTeamInput!) { createTeam(input: $input) { team { id status members { id name } } } }`;
const SEND = `mutation($input: SendRequestInput!) { sendRequest(input: $input) { jobs { id } } }`;
const RESPOND = `mutation($input: RespondInput!) { respond(input: $input) { job { id status } } }`;
const CANCEL = `mutation($input: CancelJobInput!) { cancelJob(input: $input) { job { id status } alreadyFinished } }`;
const INBOX = `{ viewer { inbox(first: 50) { edges { node { id input { kind requestId } } } } } }`;

interface Sent {
  readonly input: { teamId: string; memberIds: string[]; text: string; clientRequestId: string };
  readonly jobId: string;
}

/**
 * The crash test: runs the real server as a child process on one SQLite file under a mixed
 * workload (requests with `!sleep`, `!ask`, `!interrupt` and `!handoff`, answers, cancels,
 * idempotent replays), kills it with SIGKILL at random moments, restarts it on the same file, and
 * checks the invariants on the database: every accepted request present and finally terminal, no
 * turn started twice, no request with two receipts, at most 8 active jobs and one owner per
 * conversation in every sample, and phases only moving along the transition table.
 */
export async function runCrashTest(opts: CrashOptions): Promise<CrashFigures> {
  const started = Date.now();
  const random = prng(opts.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const log = opts.log ?? (() => {});
  const maxLifeMs = opts.maxLifeMs ?? 2_500;
  const violations: string[] = [];
  const violate = (message: string) => {
    if (violations.length < 50) violations.push(message);
  };
  const sent: Sent[] = [];
  const figures = { answers: 0, cancels: 0, replays: 0, samples: 0, maxActiveSeen: 0 };
  const phases = new Map<string, string>();
  const restartTimes: number[] = [];
  const db: { observer: BetterSqlite3.Database | null } = { observer: null };
  let teams: { id: string; members: { id: string; name: string }[] }[] = [];
  let counter = 0;
  /** Bumped when the teams reach their request limit: the workload moves to two new teams. */
  let generation = 0;

  const sample = () => {
    const observer = db.observer;
    if (!observer) return;
    let rows: { id: string; phase: string; conversation_id: string }[];
    try {
      rows = observer.prepare('SELECT id, phase, conversation_id FROM jobs').all() as typeof rows;
    } catch {
      return; // the file is being recovered by a starting server; the next sample reads it
    }
    figures.samples += 1;
    let active = 0;
    const owners = new Map<string, string>();
    for (const row of rows) {
      const before = phases.get(row.id) ?? JobPhase.QUEUED;
      if (!REACHABLE_PHASES.get(before as JobPhase)?.has(row.phase as JobPhase))
        violate(`job ${row.id} moved ${before} -> ${row.phase}`);
      phases.set(row.id, row.phase);
      if (ACTIVE.has(row.phase)) active += 1;
      if (OWNING.has(row.phase)) {
        const other = owners.get(row.conversation_id);
        if (other !== undefined) violate(`conversation ${row.conversation_id} owned by ${other} and ${row.id}`);
        owners.set(row.conversation_id, row.id);
      }
    }
    figures.maxActiveSeen = Math.max(figures.maxActiveSeen, active);
    if (active > 8) violate(`${active} active jobs in one sample`);
  };

  const ensureTeams = async (url: string) => {
    const made: (typeof teams)[number][] = [];
    for (const name of ['Alpha', 'Beta']) {
      const result = await gql(url, CREATE, {
        input: {
          clientRequestId: `crash-${name}-${generation}`,
          name,
          goal: 'Survive crashes',
          members: Array.from({ length: 8 }, (_, i) => ({
            name: `m${i}`,
            agentId: pick(['researcher', 'reviewer', 'writer']),
          })),
        },
      });
      const team = result?.data?.createTeam?.team;
      if (!team) return false;
      made.push(team);
    }
    teams = made;
    return true;
  };

  const taskText = (team: (typeof teams)[number]): string => {
    const other = pick(team.members).name;
    const ms = 50 + Math.floor(random() * 1_500);
    return pick([
      'plain work',
      `!sleep ${ms}\n!reply slept`,
      '!ask Which region?',
      '!interrupt {"approve": "deploy"}',
      `!sleep ${ms}\n!ask Still there?`,
      `!handoff ${other} check this\n!reply handed`,
      `!stream 5`,
    ]);
  };

  const operate = async (url: string, until: number) => {
    while (Date.now() < until) {
      const roll = random();
      if (roll < 0.4 && teams.length > 0) {
        const team = pick(teams);
        counter += 1;
        const input = {
          teamId: team.id,
          memberIds: [pick(team.members).id],
          text: taskText(team),
          clientRequestId: `s${opts.seed}-${counter}`,
        };
        const result = await gql(url, SEND, { input });
        const jobId = result?.data?.sendRequest?.jobs?.[0]?.id;
        if (jobId) sent.push({ input, jobId });
        else if (result?.errors?.[0]?.extensions?.code === 'REQUEST_LIMIT' && generation < 9) {
          generation += 1;
          await ensureTeams(url);
        }
      } else if (roll < 0.65) {
        const inbox = await gql(url, INBOX);
        const edges: { node: unknown }[] = inbox?.data?.viewer?.inbox?.edges ?? [];
        if (edges.length === 0) continue;
        const job = pick(edges).node as { id: string; input: { kind: string; requestId: string } | null };
        if (!job.input) continue;
        counter += 1;
        const response =
          job.input.kind === 'CLARIFICATION'
            ? pick([`answer ${counter}`, '!sleep 300\n!reply later', '!ask Again?'])
            : { ok: counter };
        const input = { jobId: job.id, response, clientRequestId: `a${counter}`, inputRequestId: job.input.requestId };
        const repeats = random() < 0.3 ? 2 : 1;
        for (let i = 0; i < repeats; i += 1) {
          const answered = await gql(url, RESPOND, { input });
          if (answered?.data?.respond) figures.answers += i === 0 ? 1 : 0;
        }
      } else if (roll < 0.75 && sent.length > 0) {
        const { jobId } = pick(sent);
        const cancelled = await gql(url, CANCEL, { input: { jobId } });
        if (cancelled?.data?.cancelJob) figures.cancels += 1;
      } else if (roll < 0.85 && sent.length > 0) {
        // An idempotent retry (as a client whose response was lost would send) answers the same job.
        const earlier = pick(sent);
        const again = await gql(url, SEND, { input: earlier.input });
        const jobId = again?.data?.sendRequest?.jobs?.[0]?.id;
        if (jobId !== undefined) {
          figures.replays += 1;
          if (jobId !== earlier.jobId)
            violate(`replay of ${earlier.input.clientRequestId} answered ${jobId}, not ${earlier.jobId}`);
        }
      } else {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };

  const boot = async (): Promise<ServerProcess> => {
    const server = await startServer(opts.database);
    restartTimes.push(server.startMs);
    db.observer ??= new BetterSqlite3(opts.database, { readonly: true, fileMustExist: true });
    return server;
  };

  const sampler = setInterval(sample, 25);
  try {
    let kills = 0;
    for (; kills < opts.kills && Date.now() < (opts.deadlineMs ?? Number.POSITIVE_INFINITY); kills += 1) {
      const kill = kills;
      const server = await boot();
      if (teams.length === 0) await ensureTeams(server.url);
      const until = Date.now() + 150 + Math.floor(random() * maxLifeMs);
      await Promise.all([0, 1, 2, 3].map(() => operate(server.url, until)));
      await stopServer(server, 'SIGKILL');
      sample();
      log(`kill ${kill + 1}/${opts.kills}: ${sent.length} accepted requests so far`);
    }

    // Final life: answer everything until every job has finished.
    const server = await boot();
    if (teams.length === 0) await ensureTeams(server.url);
    const drainStart = Date.now();
    const deadline = drainStart + 120_000;
    for (;;) {
      sample();
      const unfinished = db.observer?.prepare('SELECT count(*) AS n FROM jobs WHERE unfinished = 1').get() as {
        n: number;
      };
      if (unfinished.n === 0) break;
      if (Date.now() > deadline) {
        violate(`${unfinished.n} jobs still unfinished after the drain`);
        break;
      }
      const inbox = await gql(server.url, INBOX);
      for (const edge of inbox?.data?.viewer?.inbox?.edges ?? []) {
        const job = edge.node as { id: string; input: { kind: string; requestId: string } | null };
        if (!job.input) continue;
        const response = job.input.kind === 'CLARIFICATION' ? 'final answer' : { final: true };
        const input = {
          jobId: job.id,
          response,
          clientRequestId: `final-${job.input.requestId}`,
          inputRequestId: job.input.requestId,
        };
        if ((await gql(server.url, RESPOND, { input }))?.data?.respond) figures.answers += 1;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const drainMs = Date.now() - drainStart;
    await stopServer(server, 'SIGTERM');
    clearInterval(sampler);
    sample();
    if (!db.observer) throw new Error('no observer');
    const checks = finalChecks(db.observer, sent, violate);
    const sorted = [...restartTimes].sort((a, b) => a - b);
    return {
      kills,
      acceptedRequests: sent.length,
      ...figures,
      ...checks,
      restartMs: { median: sorted[Math.floor(sorted.length / 2)] ?? 0, max: sorted.at(-1) ?? 0 },
      drainMs,
      durationMs: Date.now() - started,
      violations,
    };
  } finally {
    clearInterval(sampler);
    db.observer?.close();
  }
}

function finalChecks(
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
