import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { prng } from '../test/support/seeded-random.js';
import { finalChecks, InvariantSampler, type Sent } from './crash-invariants.js';
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
  /** Owners whose two teams were made (the next owner's each time one of the current two was full). */
  owners: number;
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

/**
 * How many times the workload moves to two new teams of a new owner once a team is full
 * (`Limits.requestsPerTeam`); an owner per move, so `Limits.teamsPerOwner` never stops it (until
 * 2026-12-07 all were the development owner's, used up within a run's first ten or so kills).
 */
const MAX_TEAM_GENERATIONS = 400;

/**
 * Unfinished jobs past which no new request is sent until the server catches up (a client backing
 * off): without it 200 kills left about 3,000 jobs queued, more than the final drain's two minutes finish.
 */
const MAX_BACKLOG = 200;

/** The bearer token of the owner of the teams of `generation` (the server's configuration lists them). */
const tokenOf = (generation: number) => `crash-token-${generation}`;

/** Writes the server's configuration beside the database: the demo agents and one owner per generation. */
function writeCrashConfig(database: string): string {
  const path = join(dirname(database), 'crash.config.json');
  const tokens = Object.fromEntries(Array.from({ length: MAX_TEAM_GENERATIONS }, (_, g) => [tokenOf(g), `o${g}`]));
  const agents = AGENT_NAMES.map((name) => ({ name, title: name, description: name, runtime: 'scripted' }));
  writeFileSync(path, JSON.stringify({ auth: { tokens }, agents }));
  return path;
}

const UNFINISHED = 'SELECT count(*) AS n FROM jobs WHERE unfinished = 1';
const AGENT_NAMES = ['researcher', 'reviewer', 'writer'];
const CREATE = `mutation($input: CreateTeamInput!) { createTeam(input: $input) { team { id status members { id name } } } }`;
const SEND = `mutation($input: SendRequestInput!) { sendRequest(input: $input) { jobs { id } } }`;
const RESPOND = `mutation($input: RespondInput!) { respond(input: $input) { job { id status } } }`;
const CANCEL = `mutation($input: CancelJobInput!) { cancelJob(input: $input) { job { id status } alreadyFinished } }`;
const INBOX = `{ viewer { inbox(first: 50) { edges { node { id input { kind requestId } } } } } }`;

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
  const figures = { answers: 0, cancels: 0, replays: 0 };
  const restartTimes: number[] = [];
  const db: { observer: BetterSqlite3.Database | null } = { observer: null };
  let teams: { id: string; members: { id: string; name: string }[]; token: string }[] = [];
  let counter = 0;
  /** Bumped when the teams reach their request limit: the workload moves to two new teams of a new owner. */
  let generation = 0;
  /** The tokens of every owner with teams: their inboxes keep being answered. */
  const tokens: string[] = [];
  /** The move to new teams under way: the four workers meet the request limit at about the same time. */
  let moving: Promise<unknown> | null = null;
  const serverArgs = ['--config', writeCrashConfig(opts.database)];

  // Guarded as the sampler's reads (a starting server may recover the file): unknown is NaN, never 0.
  const unfinishedJobs = (): number => {
    try {
      return (db.observer?.prepare(UNFINISHED).get() as { n: number } | undefined)?.n ?? Number.NaN;
    } catch {
      return Number.NaN; // the drain goes on and asks again; sends are not held back
    }
  };
  const sampler = new InvariantSampler(violate);
  const sample = () => {
    if (db.observer) sampler.sample(db.observer);
  };

  const ensureTeams = async (url: string) => {
    const made: (typeof teams)[number][] = [];
    const token = tokenOf(generation);
    for (const name of ['Alpha', 'Beta']) {
      const input = {
        clientRequestId: `crash-${name}-${generation}`,
        name,
        goal: 'Survive crashes',
        members: Array.from({ length: 8 }, (_, i) => ({ name: `m${i}`, agentId: pick(AGENT_NAMES) })),
      };
      const team = (await gql(url, CREATE, { input }, token))?.data?.createTeam?.team;
      if (!team) return false;
      made.push({ ...team, token });
    }
    teams = made;
    if (!tokens.includes(token)) tokens.push(token);
    return true;
  };

  /** Moves the workload to two new teams of the next owner, once per set of teams that is full. */
  const moveOn = (url: string, full: (typeof teams)[number]): Promise<unknown> => {
    if (moving === null && teams.includes(full) && generation + 1 < MAX_TEAM_GENERATIONS) {
      generation += 1;
      moving = ensureTeams(url).finally(() => {
        moving = null;
      });
    }
    return moving ?? Promise.resolve();
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
        if (unfinishedJobs() >= MAX_BACKLOG) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          continue;
        }
        const team = pick(teams);
        counter += 1;
        const input = {
          teamId: team.id,
          memberIds: [pick(team.members).id],
          text: taskText(team),
          clientRequestId: `s${opts.seed}-${counter}`,
        };
        const result = await gql(url, SEND, { input }, team.token);
        const jobId = result?.data?.sendRequest?.jobs?.[0]?.id;
        if (jobId) sent.push({ input, jobId, token: team.token });
        else if (result?.errors?.[0]?.extensions?.code === 'REQUEST_LIMIT') await moveOn(url, team);
      } else if (roll < 0.65 && tokens.length > 0) {
        // Any owner's inbox: the earlier owners' jobs that wait for input are still answered.
        const token = pick(tokens);
        const inbox = await gql(url, INBOX, {}, token);
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
          const answered = await gql(url, RESPOND, { input }, token);
          if (answered?.data?.respond) figures.answers += i === 0 ? 1 : 0;
        }
      } else if (roll < 0.75 && sent.length > 0) {
        const { jobId, token } = pick(sent);
        const cancelled = await gql(url, CANCEL, { input: { jobId } }, token);
        if (cancelled?.data?.cancelJob) figures.cancels += 1;
      } else if (roll < 0.85 && sent.length > 0) {
        // An idempotent retry (as a client whose response was lost would send) answers the same job.
        const earlier = pick(sent);
        const again = await gql(url, SEND, { input: earlier.input }, earlier.token);
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
    const server = await startServer(opts.database, undefined, serverArgs);
    if (db.observer) restartTimes.push(server.startMs); // a restart: not the first boot, which migrates
    // Never waits for a lock (its reads catch errors): a busy wait would stall this loop's clocks.
    db.observer ??= new BetterSqlite3(opts.database, { readonly: true, fileMustExist: true, timeout: 0 });
    return server;
  };

  const sampling = setInterval(sample, 25);
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
      const unfinished = unfinishedJobs();
      if (unfinished === 0) break;
      if (Date.now() > deadline) {
        violate(`${unfinished} jobs still unfinished after the drain`);
        break;
      }
      for (const token of tokens) {
        const inbox = await gql(server.url, INBOX, {}, token);
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
          if ((await gql(server.url, RESPOND, { input }, token))?.data?.respond) figures.answers += 1;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const drainMs = Date.now() - drainStart;
    await stopServer(server, 'SIGTERM');
    clearInterval(sampling);
    sample();
    if (!db.observer) throw new Error('no observer');
    const checks = finalChecks(db.observer, sent, violate);
    const sorted = [...restartTimes].sort((a, b) => a - b);
    return {
      kills,
      acceptedRequests: sent.length,
      owners: tokens.length,
      ...figures,
      samples: sampler.samples,
      maxActiveSeen: sampler.maxActiveSeen,
      ...checks,
      restartMs: { median: sorted[Math.floor(sorted.length / 2)] ?? 0, max: sorted.at(-1) ?? 0 },
      drainMs,
      durationMs: Date.now() - started,
      violations,
    };
  } finally {
    clearInterval(sampling);
    db.observer?.close();
  }
}
