// Random job sets for the admission's candidate read (`readCandidates`), inserted as raw rows, and
// the candidates computed from them by brute force: each conversation's head (its unfinished job
// of least seq), kept when QUEUED or ANSWERED in a READY or CLOSED team, each owner's `perOwner`
// oldest of those, plus every woken wait.
import { type AdmissionCandidate, JobPhase, TeamEventKind, TeamStatus, wakesWaiter } from '@agent-teams/core';
import type { CompiledQuery } from 'kysely';
import type { OpenedDatabase } from '../../src/storage/open-database.js';
import { WriteScope } from '../../src/storage/write-transaction.js';
import { teamRowValues } from './raw-rows.js';
import { prng } from './seeded-random.js';

export const NOW = '2026-03-01T12:00:00.000Z';
/** Wait deadlines: passed, exactly now (woken: `<=`), not yet. */
const DEADLINES = ['2026-03-01T11:59:59.999Z', NOW, '2026-03-01T12:00:00.001Z'];
/** The phases that hold their conversation (the unique index `jobs_one_admitted_per_conversation`). */
const OWNING: readonly string[] = [
  JobPhase.ADMITTING,
  JobPhase.RUNNING,
  JobPhase.RESUMING,
  JobPhase.CANCELLING,
  JobPhase.WAITING_INPUT,
  JobPhase.ANSWERED,
];
const FINISHED: readonly string[] = [JobPhase.COMPLETED, JobPhase.FAILED, JobPhase.CANCELLED];
/** Every phase, QUEUED and the finished ones drawn more often so heads vary. */
const PHASES: readonly string[] = [
  ...Object.values(JobPhase),
  JobPhase.QUEUED,
  JobPhase.QUEUED,
  JobPhase.QUEUED,
  JobPhase.ANSWERED,
  ...FINISHED,
  JobPhase.WAITING_CHANGE,
];
/** Conversation names that differ by case and accents only. */
const LETTERS = ['a', 'B', 'é', 'A', 'b', 'É', 'e', 'E', 'z', 'ä', 'Z', 'ß'];
const EVENT_KINDS = [TeamEventKind.JOB_CHANGED, TeamEventKind.MEMBER_CHANGED, TeamEventKind.RECORD_APPENDED];

export interface Team {
  readonly id: string;
  readonly owner: string;
  readonly status: string;
}
export interface Job {
  readonly id: string;
  readonly teamId: string;
  readonly owner: string;
  readonly conversationId: string;
  readonly memberId: string;
  readonly phase: string;
  readonly unfinished: number;
  seq: number;
  readonly waitAfterSeq: number | null;
  readonly waitDeadline: string | null;
}
export interface Event {
  readonly teamId: string;
  readonly seq: number;
  readonly kind: string;
  readonly jobId: string | null;
  readonly memberId: string | null;
}
export interface State {
  readonly teams: Team[];
  readonly jobs: Job[];
  readonly events: Event[];
  readonly perOwner: number;
}

/** A random state: teams of 1–5 owners, 1–40 conversations (each of one team, so of one owner). */
export function randomState(seed: number): State {
  const rand = prng(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)] as T;
  const statuses = Object.values(TeamStatus);
  const owners = Array.from({ length: int(1, 5) }, (_, i) => `owner_${i}`);
  const teams = Array.from({ length: int(1, 6) }, (_, i) => ({
    id: `team_${i}`,
    owner: pick(owners),
    // READY most often, so that candidates are many.
    status: rand() < 0.5 ? TeamStatus.READY : pick(statuses),
  }));
  const jobs: Job[] = [];
  const conversations = int(1, 40);
  for (let c = 0; c < conversations; c += 1) {
    const team = pick(teams);
    const conversationId = `conv_${LETTERS[c % LETTERS.length]}${c < LETTERS.length ? '' : Math.floor(c / LETTERS.length)}`;
    let owning = false;
    for (let k = int(1, 6); k > 0; k -= 1) {
      let phase = pick(PHASES);
      // At most one job of a conversation holds it.
      if (OWNING.includes(phase) && owning) phase = JobPhase.QUEUED;
      owning ||= OWNING.includes(phase);
      const waiting = phase === JobPhase.WAITING_CHANGE;
      jobs.push({
        id: `job_${jobs.length}`,
        teamId: team.id,
        owner: team.owner,
        conversationId,
        memberId: `mem_${conversationId}`,
        phase,
        unfinished: FINISHED.includes(phase) ? 0 : 1,
        seq: 0,
        waitAfterSeq: waiting ? int(0, 4) : null,
        waitDeadline: waiting ? pick(DEADLINES) : null,
      });
    }
  }
  // Seqs in a random order across conversations, with gaps.
  const order = jobs.map((job) => ({ job, key: rand() })).sort((a, b) => a.key - b.key);
  let seq = 0;
  for (const { job } of order) {
    seq += int(1, 3);
    job.seq = seq;
  }
  const events: Event[] = [];
  for (const team of teams) {
    const own = jobs.filter((job) => job.teamId === team.id);
    for (let s = 1, n = int(0, 4); s <= n; s += 1) {
      const kind = pick(EVENT_KINDS);
      const about = own.length > 0 && rand() < 0.7 ? pick(own) : null;
      events.push({
        teamId: team.id,
        seq: s,
        kind,
        jobId: kind === TeamEventKind.JOB_CHANGED ? (about?.id ?? null) : null,
        memberId: kind === TeamEventKind.MEMBER_CHANGED ? (about?.memberId ?? null) : null,
      });
    }
  }
  return { teams, jobs, events, perOwner: int(0, 5) };
}

/** The candidates by brute force: every job looked at, in plain JavaScript. */
export function bruteForce(state: State): AdmissionCandidate[] {
  const statusOf = (teamId: string) => state.teams.find((team) => team.id === teamId)?.status;
  const heads: Job[] = [];
  for (const job of state.jobs) {
    if (job.unfinished !== 1) continue;
    const older = state.jobs.some(
      (other) => other.unfinished === 1 && other.conversationId === job.conversationId && other.seq < job.seq,
    );
    if (!older) heads.push(job);
  }
  const waitingHeads = heads
    .filter((job) => job.phase === JobPhase.QUEUED || job.phase === JobPhase.ANSWERED)
    .filter((job) => statusOf(job.teamId) === TeamStatus.READY || statusOf(job.teamId) === TeamStatus.CLOSED)
    .sort((a, b) => a.seq - b.seq);
  const kept: Job[] = [];
  const perOwner = new Map<string, number>();
  for (const job of waitingHeads) {
    const n = perOwner.get(job.owner) ?? 0;
    if (n < state.perOwner) kept.push(job);
    perOwner.set(job.owner, n + 1);
  }
  const woken = state.jobs.filter((job) => {
    if (job.phase !== JobPhase.WAITING_CHANGE || statusOf(job.teamId) !== TeamStatus.READY) return false;
    if (job.waitDeadline !== null && job.waitDeadline <= NOW) return true;
    // The core's own rule (`wakesWaiter`), not the statement's SQL form of it.
    const waiter = { id: job.id, memberId: job.memberId, wait: { afterSeq: job.waitAfterSeq ?? 0 } } as never;
    return state.events.some((event) => event.teamId === job.teamId && wakesWaiter(event as never, waiter));
  });
  return [...kept, ...woken]
    .sort((a, b) => a.seq - b.seq)
    .map((job) => ({
      jobId: job.id,
      owner: job.owner,
      teamId: job.teamId,
      conversationId: job.conversationId,
      seq: job.seq,
    })) as AdmissionCandidate[];
}

/** Replaces every team, job and event of the database with the state's rows. */
export async function loadState(database: OpenedDatabase, state: State): Promise<void> {
  const { db } = database;
  await db.deleteFrom('team_events').execute();
  await db.deleteFrom('jobs').execute();
  await db.deleteFrom('teams').execute();
  await db
    .insertInto('teams')
    .values(
      state.teams.map((team) => ({ ...teamRowValues(team.id, 'T', NOW), owner: team.owner, status: team.status })),
    )
    .execute();
  if (state.jobs.length > 0) {
    await db
      .insertInto('jobs')
      .values(
        state.jobs.map((job) => ({
          seq: job.seq,
          id: job.id,
          team_id: job.teamId,
          owner: job.owner,
          kind: 'REQUEST',
          phase: job.phase,
          unfinished: job.unfinished,
          member_id: job.memberId,
          conversation_id: job.conversationId,
          requester_key: '',
          root_id: job.id,
          client_key: job.id,
          text: 't',
          created_at: NOW,
          updated_at: NOW,
          wait_json:
            job.waitAfterSeq === null
              ? null
              : JSON.stringify({ afterSeq: job.waitAfterSeq, deadline: job.waitDeadline }),
          wait_after_seq: job.waitAfterSeq,
          wait_deadline: job.waitDeadline,
        })),
      )
      .execute();
  }
  if (state.events.length > 0) {
    await db
      .insertInto('team_events')
      .values(
        state.events.map((event) => ({
          team_id: event.teamId,
          seq: event.seq,
          kind: event.kind,
          job_id: event.jobId,
          member_id: event.memberId,
          created_at: NOW,
        })),
      )
      .execute();
  }
}

/** A job row of a {@link State} outside a wait: its member named after its conversation, unfinished unless its phase is a finished one. */
export function jobRow(row: Pick<Job, 'id' | 'teamId' | 'owner' | 'conversationId' | 'phase' | 'seq'>): Job {
  const unfinished = FINISHED.includes(row.phase) ? 0 : 1;
  return { ...row, memberId: `m_${row.conversationId}`, unfinished, waitAfterSeq: null, waitDeadline: null };
}

/**
 * A write scope over `database` at {@link NOW} whose recursive statements (the candidate reads:
 * the walk by owner and the scan by conversation) are recorded in `seen` as they are built.
 */
export function recordingScope(database: OpenedDatabase): { scope: WriteScope; seen: CompiledQuery[] } {
  const seen: CompiledQuery[] = [];
  const db = database.db.withPlugin({
    transformQuery(args) {
      const compiled = database.db.getExecutor().compileQuery(args.node, args.queryId);
      // The walks and scans: SQLite's begin with their CTE, PostgreSQL's walk selects from its own.
      if (/^(with recursive|select "h"\."id")/.test(compiled.sql)) seen.push(compiled);
      return args.node;
    },
    transformResult: (args) => Promise.resolve(args.result),
  });
  return { scope: new WriteScope(db, { db, dialect: database.dialect, sink: null, ids: null }, NOW), seen };
}
