import { type Job, JobPhase, type OwnerId } from '@agent-teams/core';
import { sql } from 'kysely';
import pg from 'pg';
import { BENCH_POSTGRES_ADMIN, createBenchPostgres } from '../bench/harness/bench-postgres.js';
import { type BenchStack, benchOwner, openBenchStack, sendToAll } from '../bench/harness/bench-stack.js';
import { openDatabase } from '../src/storage/open-database.js';

/** What a run of {@link runBackendKills} did and found. */
export interface BackendKillFigures {
  readonly seconds: number;
  /** Backends ended by `pg_terminate_backend` while the load ran. */
  readonly kills: number;
  readonly sends: number;
  readonly acceptedJobs: number;
  /** Failed sends by what they said (each retried with its key until it was answered). */
  readonly sendFailures: ReadonlyMap<string, number>;
  readonly drainMs: number;
  readonly finalPhases: Readonly<Record<string, number>>;
  readonly violations: readonly string[];
}

/** Backends of the database are ended one at a time, this long apart at most (random below it). */
const KILL_EVERY_MAX_MS = 170;
const KILL_EVERY_MIN_MS = 20;
const SENDERS = 4;
/** Sends wait while more jobs than this are unfinished (the 8 slots stay full, the backlog short). */
const MAX_BACKLOG = 60;
/** Each send goes to a whole team; a key is retried until it is answered (an ambiguous failure answers the same jobs). */
const ATTEMPTS_PER_KEY = 50;

type Target = { owner: OwnerId; team: Awaited<ReturnType<BenchStack['teams']>>[number] };

/**
 * Sends to teams and runs their turns on PostgreSQL for `seconds` while a killer ends a random
 * backend of the database every 20–170 ms (`pg_terminate_backend`: the server's connections die
 * mid-transaction, before, while or after their COMMIT is sent), then drains and checks the
 * invariants: every accepted request is stored and completed; each team's event log is gap-free
 * and ends at its seq; no job has two answers, two answer records or two runs.
 *
 * @remarks What it exercises: the statements a transaction leaves on the wire and the COMMIT that
 * goes with them (decision 0252), the retries of failed writes, the scheduler's retries of failed
 * steps, and the pool's reconnects. A send whose connection died is retried with the same key,
 * as a client would: the idempotency key makes a committed one answer the same jobs.
 */
export async function runBackendKills(seconds: number, log: (line: string) => void): Promise<BackendKillFigures> {
  const database = await createBenchPostgres('chaos_kills');
  const admin = new pg.Client({ connectionString: BENCH_POSTGRES_ADMIN });
  await admin.connect();
  const stack = await openBenchStack(await openDatabase(database.url, { poolSize: 4 }));
  try {
    await stack.scheduler.start();
    const targets: Target[] = [];
    for (let o = 0; o < 3; o += 1) {
      for (const team of await stack.teams(benchOwner(o), 4, 3)) targets.push({ owner: benchOwner(o), team });
    }
    const accepted = new Set<string>();
    const failures = new Map<string, number>();
    let kills = 0;
    let sends = 0;
    let stop = false;
    const killer = (async () => {
      while (!stop) {
        await new Promise((resolve) =>
          setTimeout(resolve, KILL_EVERY_MIN_MS + Math.random() * (KILL_EVERY_MAX_MS - KILL_EVERY_MIN_MS)),
        );
        if (stop) break;
        // Its own client closes when a failure ends the run: the loop then ends with it.
        const { rows } = await admin
          .query<{ ended: boolean }>(
            "select pg_terminate_backend(pid) as ended from pg_stat_activity where datname = $1 and backend_type = 'client backend' order by random() limit 1",
            [database.name],
          )
          .catch(() => ({ rows: [] as { ended: boolean }[] }));
        if (rows[0]?.ended) kills += 1;
      }
    })();
    const end = Date.now() + seconds * 1_000;
    const sending = Promise.all(
      Array.from({ length: SENDERS }, async (_, sender) => {
        // Its own teams; one that took its 100 requests is replaced by a new one.
        const own = targets.filter((_, i) => i % SENDERS === sender);
        for (let n = 0; Date.now() < end; n += 1) {
          // Paced by the scheduler: sends wait while the backlog is full, so turns run (and die) under the kills too.
          while (Date.now() < end && (await unfinishedOrBusy(stack)) > MAX_BACKLOG) {
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          const slot = n % own.length;
          const key = `chaos-${sender}-${n}`;
          sends += 1;
          let jobs = await sendUntilAnswered(stack, own[slot] as Target, key, failures);
          while (jobs === null) {
            own[slot] = await newTeam(stack, failures);
            jobs = await sendUntilAnswered(stack, own[slot] as Target, key, failures);
          }
          for (const job of jobs) accepted.add(job.id);
        }
      }),
    );
    // The killer stops whatever the senders' outcome, before its client is closed; it goes on
    // through the drain, so the last turns run under it too.
    let drainMs = 0;
    try {
      await sending;
      log(`${kills} backends ended, ${accepted.size} jobs accepted; draining, the killer still on`);
      const drainStart = Date.now();
      while ((await unfinishedOrBusy(stack)) > 0 && Date.now() - drainStart < 180_000) {
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      drainMs = Date.now() - drainStart;
    } finally {
      stop = true;
      await killer;
    }
    // The pool may still hand out a connection the last kill ended: the reads are tried again.
    const { violations, finalPhases } = await untilAnswered('the invariants read', failures, () =>
      checkInvariants(stack, accepted),
    );
    return {
      seconds,
      kills,
      sends,
      acceptedJobs: accepted.size,
      sendFailures: failures,
      drainMs,
      finalPhases,
      violations,
    };
  } finally {
    await stack.close();
    await admin.end();
    await database.drop();
  }
}

/** The unfinished jobs, or a number above any bound when the read itself lost its connection. */
async function unfinishedOrBusy(stack: BenchStack): Promise<number> {
  return stack.unfinished().catch(() => Number.MAX_SAFE_INTEGER);
}

/**
 * Sends until answered; null when the team took all the requests it may (`REQUEST_LIMIT`). Counts
 * each failure by what it said.
 */
async function sendUntilAnswered(
  stack: BenchStack,
  target: Target,
  key: string,
  failures: Map<string, number>,
): Promise<readonly Job[] | null> {
  return untilAnswered(`send ${key}`, failures, async () => {
    try {
      return await sendToAll(stack.core, target.owner, target.team, key, `Instant answer ${key}`);
    } catch (error) {
      if ((error as { code?: unknown }).code === 'REQUEST_LIMIT') return null;
      throw error;
    }
  });
}

let teamsMade = 0;

/**
 * A new team of 3, created however often its connection dies (its key makes it one team), of an
 * owner of its own (an owner may hold only so many teams).
 */
async function newTeam(stack: BenchStack, failures: Map<string, number>): Promise<Target> {
  teamsMade += 1;
  const owner = benchOwner(1_000 + teamsMade);
  const key = `chaos-team-${teamsMade}`;
  const team = await untilAnswered(`team ${key}`, failures, async () => {
    const made = await stack.core.teams.create(owner, {
      clientRequestId: key,
      name: key,
      goal: 'Chaos',
      members: [0, 1, 2].map((i) => ({ name: `m${i}`, agentId: 'researcher' })),
    });
    return { team: made, members: [...(await stack.core.teams.members([made.id]))] };
  });
  return { owner, team };
}

/** Runs `attempt` until it answers, at most {@link ATTEMPTS_PER_KEY} times; counts each failure by what it said. */
async function untilAnswered<T>(what: string, failures: Map<string, number>, attempt: () => Promise<T>): Promise<T> {
  const said: string[] = [];
  for (let n = 1; ; n += 1) {
    try {
      return await attempt();
    } catch (error) {
      const message = String((error as Error).message)
        .replace(/\d+/g, 'N')
        .slice(0, 70);
      failures.set(message, (failures.get(message) ?? 0) + 1);
      said.push(message);
      if (n >= ATTEMPTS_PER_KEY) {
        throw new Error(`${what} failed ${n} times: ${[...new Set(said)].join('; ')}`, { cause: error });
      }
    }
  }
}

async function checkInvariants(
  stack: BenchStack,
  accepted: ReadonlySet<string>,
): Promise<{ violations: string[]; finalPhases: Record<string, number> }> {
  const db = stack.database.db;
  const violations: string[] = [];
  const jobs = await db.selectFrom('jobs').select(['id', 'phase']).execute();
  const finalPhases: Record<string, number> = {};
  for (const job of jobs) finalPhases[job.phase] = (finalPhases[job.phase] ?? 0) + 1;
  const stored = new Set(jobs.map((job) => job.id));
  const missing = [...accepted].filter((id) => !stored.has(id));
  if (missing.length > 0) violations.push(`${missing.length} accepted jobs missing, e.g. ${missing[0]}`);
  const open = jobs.filter((job) => job.phase !== JobPhase.COMPLETED);
  if (open.length > 0)
    violations.push(`${open.length} jobs not completed after the drain, e.g. ${open[0]?.id} ${open[0]?.phase}`);
  const { rows: logs } = await sql<{ id: string; last: number; n: number; lo: number | null; hi: number | null }>`
    select t.id, t.last_event_seq as last, count(e.seq)::int as n, min(e.seq) as lo, max(e.seq) as hi
    from teams t left join team_events e on e.team_id = t.id group by t.id, t.last_event_seq`.execute(db);
  for (const team of logs) {
    const gapFree = team.n === 0 || Number(team.hi) - Number(team.lo) + 1 === team.n;
    if (!gapFree || Number(team.hi ?? 0) !== Number(team.last)) {
      violations.push(`team ${team.id}: events ${team.lo}–${team.hi} (${team.n}) against its seq ${team.last}`);
    }
  }
  const twice = async (what: string, query: ReturnType<typeof sql<{ n: number }>>) => {
    const { rows } = await query.execute(db);
    if (rows.length > 0) violations.push(`${rows.length} jobs with ${what}`);
  };
  await twice(
    'two answers in their conversation',
    sql`select job_id, count(*) as n from conversation_messages where role = 'assistant' and job_id is not null group by job_id having count(*) > 1`,
  );
  await twice(
    'two records of one kind',
    sql`select job_id, count(*) as n from record_messages where job_id is not null group by job_id, kind having count(*) > 1`,
  );
  await twice('two runs', sql`select job_id, count(*) as n from runtime_runs group by job_id having count(*) > 1`);
  return { violations, finalPhases };
}

/** The `pg-backend-kills` section of `docs/reliability.md` for one run. */
export function backendKillSection(figures: BackendKillFigures, started: Date): string {
  const failures = [...figures.sendFailures].sort((a, b) => b[1] - a[1]);
  const phases = Object.entries(figures.finalPhases)
    .sort()
    .map(([phase, n]) => `${phase} ${n}`)
    .join(', ');
  return `## PostgreSQL: backends ended at random under load

Run of ${started.toISOString()} (\`AGENT_TEAMS_CHAOS_PART=postgres pnpm chaos\`; part of every full run).
${SENDERS} senders send to teams of 3 (each send to a whole team) while the scheduler runs every turn
(instant scripted answers), one server on a fresh database, its pool of 4 connections; a killer
ends a random backend of that database every ${KILL_EVERY_MIN_MS}–${KILL_EVERY_MAX_MS} ms
(\`pg_terminate_backend\`), so connections die before, during and after their COMMIT, with
statements left on the wire (decision 0252). A failed send is retried with its key, as a client
would; sends wait while more than ${MAX_BACKLOG} jobs are unfinished, so the turns run under the kills
too; a team that took its 100 requests is replaced by a new one. Then the sends stop, and every
job must finish while the killer goes on.

| Figure | Value |
| --- | --- |
| Load | ${figures.seconds} s |
| Backends ended | ${figures.kills} |
| Sends (keys) / jobs accepted | ${figures.sends} / ${figures.acceptedJobs} |
| Failed attempts, by what they said | ${failures.length === 0 ? 'none' : failures.map(([said, n]) => `${n} × ${said.replace(/\|/g, '\\|')}`).join('<br>')} |
| Drain after the load | ${figures.drainMs} ms |
| Final phases | ${phases} |
| Violations | ${figures.violations.length === 0 ? 'none' : figures.violations.map((v) => `\`${v}\``).join('<br>')} |

Invariants: every accepted job is stored and completed; each team's event log has no gap and ends
at the team's seq; no job has two answers in its conversation, two records of one kind, or two runs.
`;
}
