import { writeFileSync } from 'node:fs';
import {
  asOwnerId,
  type Core,
  DomainError,
  ErrorCode,
  type EventSink,
  isTerminal,
  type Job,
  type JobId,
  JobPhase,
  Limits,
  type Team,
  TeamStatus,
  type TeamStore,
} from '@agent-teams/core';
import {
  createMemoryTeamStore,
  DEMO_AGENTS,
  FakeClock,
  MemoryLogger,
  REACHABLE_PHASES,
  SequentialIds,
  StaticCatalog,
} from '@agent-teams/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type App, createApp } from '../../src/app/create-app.js';
import { ModelRuntime } from './model-runtime.js';

/**
 * Model-based test of the scheduler and the job state machine: random sequences of requests,
 * runtime outcomes, answers, cancels, crashes (the scheduler is dropped and rebuilt from the
 * store), a second scheduler racing the first (duplicate starts, acks, polls), failing database
 * writes, runtime failures and clock jumps; after every step the scheduling invariants hold,
 * and at the end every request finishes once everything is answered.
 *
 * Runs: `AGENT_TEAMS_MODEL_RUNS` (default 25 in `pnpm test`; `pnpm chaos` runs 10,000).
 */
const RUNS = Number(process.env.AGENT_TEAMS_MODEL_RUNS ?? 25);
const SEED = process.env.AGENT_TEAMS_MODEL_SEED ? Number(process.env.AGENT_TEAMS_MODEL_SEED) : undefined;
const OWNER = asOwnerId('alice');
/** Figures over all sequences, written to `AGENT_TEAMS_MODEL_STATS_FILE` when set (`pnpm chaos`). */
const STATS = {
  sequences: 0,
  actions: 0,
  requests: 0,
  crashes: 0,
  races: 0,
  answers: 0,
  finished: {} as Record<string, number>,
};

type Action =
  | { t: 'send'; member: number; twice: boolean }
  | { t: 'settle'; pick: number; outcome: 'complete' | 'ask' | 'interrupt' | 'fail' }
  | { t: 'respond'; pick: number; valid: boolean; reuseKey: boolean; stale: boolean }
  | { t: 'cancel'; pick: number; twice: boolean }
  | { t: 'crash' }
  | { t: 'race' }
  | { t: 'dbfail'; n: number }
  | { t: 'rtfail'; kind: 'transient' | 'ambiguous' | 'rejected' }
  | { t: 'reconnect' }
  | { t: 'clock'; ms: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ t: fc.constant('send' as const), member: fc.nat(11), twice: fc.boolean() }) },
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant('settle' as const),
      pick: fc.nat(20),
      outcome: fc.constantFrom('complete' as const, 'ask' as const, 'interrupt' as const, 'fail' as const),
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      t: fc.constant('respond' as const),
      pick: fc.nat(20),
      valid: fc.boolean(),
      reuseKey: fc.boolean(),
      stale: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('cancel' as const), pick: fc.nat(40), twice: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('crash' as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('race' as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('dbfail' as const), n: fc.integer({ min: 1, max: 3 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('rtfail' as const),
      kind: fc.constantFrom('transient' as const, 'ambiguous' as const, 'rejected' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('reconnect' as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('clock' as const), ms: fc.integer({ min: 0, max: 200_000 }) }) },
);

const INJECTED = 'injected database failure';

/** A store whose next `failing` writes throw, as a database that went away would. */
function failingStore(store: TeamStore, failing: { n: number }): TeamStore {
  const writes = new Set(['updateJob', 'admit', 'setTeamStatus']);
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (writes.has(String(property))) {
        return (...args: unknown[]) => {
          if (failing.n > 0) {
            failing.n -= 1;
            return Promise.reject(new Error(INJECTED));
          }
          return value.apply(target, args);
        };
      }
      return value.bind(target);
    },
  });
}

class World {
  readonly clock = new FakeClock();
  readonly ids = new SequentialIds();
  readonly logger = new MemoryLogger();
  /** The store publishes here; the running application's sink receives it. */
  readonly relay: { target: EventSink | null } & EventSink = {
    target: null,
    published: (events) => this.relay.target?.published(events),
  };
  readonly store = createMemoryTeamStore({ ids: this.ids, events: this.relay });
  readonly runtime = new ModelRuntime();
  readonly catalog = new StaticCatalog(DEMO_AGENTS);
  readonly failing = { n: 0 };
  /** The application ("the server"); a crash replaces it with a new one over the same store. */
  app!: App;
  teams: { team: Team; members: { id: string }[] }[] = [];
  /** Every accepted request, and the last phase seen for it. */
  readonly seen = new Map<JobId, JobPhase>();
  /** Accepted answers per job (distinct keys), and the last key used per job. */
  readonly answers = new Map<JobId, Set<string>>();
  readonly lastKey = new Map<JobId, { key: string; value: unknown }>();
  #counter = 0;

  get core(): Core {
    return this.app.core;
  }

  /**
   * Builds the application as production does (`createApp`) over the shared in-memory store,
   * failing writes, the model runtime and the fake clock. All share the lease identity `local`,
   * so a racing second application drives the same jobs (duplicate starts, acks, polls).
   */
  #open(events: 'follow' | 'ignore'): Promise<App> {
    return createApp({
      database: null,
      store: (sink) => {
        if (events === 'follow') this.relay.target = sink;
        return failingStore(this.store, this.failing);
      },
      runtimes: () => [this.runtime],
      catalog: this.catalog,
      clock: this.clock,
      ids: this.ids,
      logger: this.logger,
      lease: { serverId: 'local' },
      scheduler: { safetyNetMs: 3_600_000, stopTimeoutMs: 5_000 },
    });
  }

  async setUp(): Promise<void> {
    this.app = await this.#open('follow');
    for (let t = 0; t < 3; t += 1) {
      const team = await this.core.teams.create(OWNER, {
        clientRequestId: `team-${t}`,
        name: `Team ${t}`,
        goal: 'Model',
        members: Array.from({ length: 4 }, (_, i) => ({ name: `m${i}`, agentId: 'researcher' })),
      });
      this.teams.push({ team, members: [...(await this.core.teams.members([team.id]))] });
    }
    await this.app.start();
  }

  async settleDown(): Promise<void> {
    this.app.scheduler?.wake();
    await this.app.scheduler?.idle();
  }

  /** Runs one action; a person's call refused by an injected database failure changes nothing. */
  async run(a: Action): Promise<void> {
    try {
      await this.#act(a);
    } catch (error) {
      if (!(error instanceof Error) || error.message !== INJECTED) throw error;
    }
  }

  async #act(a: Action): Promise<void> {
    switch (a.t) {
      case 'send': {
        const { team, members } = this.teams[Math.floor(a.member / 4)] as (typeof this.teams)[number];
        const member = members[a.member % 4] as { id: string };
        this.#counter += 1;
        const input = {
          teamId: team.id,
          memberIds: [member.id],
          text: `task ${this.#counter}`,
          clientRequestId: `r${this.#counter}`,
        };
        const sends = a.twice ? [input, input] : [input];
        const results = await Promise.all(sends.map((i) => this.core.requests.send(OWNER, i)));
        const ids = new Set(results.flat().map((job) => job.id));
        expect(ids.size).toBe(1);
        for (const id of ids) if (!this.seen.has(id)) this.seen.set(id, JobPhase.QUEUED);
        STATS.requests += ids.size;
        return;
      }
      case 'settle': {
        const running = this.runtime.running();
        const run = running[a.pick % Math.max(1, running.length)];
        if (!run) return;
        if (a.outcome === 'complete')
          this.runtime.settle(run, { state: 'completed', answer: `answer of ${run.runKey}` });
        else if (a.outcome === 'fail') this.runtime.settle(run, { state: 'failed', error: 'agent failed' });
        else {
          const kind = a.outcome === 'ask' ? 'CLARIFICATION' : 'INTERRUPT';
          this.runtime.settle(run, { state: 'waiting', input: ModelRuntime.question(run, kind) });
        }
        return;
      }
      case 'respond': {
        const waiting = (await this.core.jobs.inbox(OWNER, { first: 100 })).edges.map((e) => e.node);
        const job = waiting[a.pick % Math.max(1, waiting.length)];
        if (!job?.pendingInput) return;
        // An unpaired surrogate is refused for either kind (a blank string is a valid interrupt response).
        const value = !a.valid ? 'x\ud800' : job.pendingInput.kind === 'CLARIFICATION' ? 'yes' : { ok: a.pick };
        const previous = this.lastKey.get(job.id);
        this.#counter += 1;
        const key = a.reuseKey && previous ? previous.key : `k${this.#counter}`;
        const inputRequestId = a.stale ? 'an-old-question' : job.pendingInput.requestId;
        try {
          await this.core.jobs.respond(OWNER, { jobId: job.id, response: value, clientRequestId: key, inputRequestId });
          // A replay (same key, same answer) returns the job without deciding again.
          const replay =
            a.reuseKey && previous !== undefined && JSON.stringify(previous.value) === JSON.stringify(value);
          expect((a.valid && !a.stale) || replay).toBe(true);
          if (!(a.reuseKey && previous)) {
            this.lastKey.set(job.id, { key, value });
            STATS.answers += 1;
            const set = this.answers.get(job.id) ?? new Set();
            set.add(key);
            this.answers.set(job.id, set);
          }
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          const allowed: string[] = [ErrorCode.IDEMPOTENCY_CONFLICT];
          if (!a.valid) allowed.push(ErrorCode.INVALID_RESPONSE);
          if (a.stale) allowed.push(ErrorCode.INPUT_CHANGED);
          expect(allowed).toContain(error.code);
        }
        return;
      }
      case 'cancel': {
        const ids = [...this.seen.keys()];
        const id = ids[a.pick % Math.max(1, ids.length)];
        if (!id) return;
        const before = await this.store.findJob(OWNER, id);
        const calls = a.twice ? [1, 2] : [1];
        const outcomes = await Promise.all(calls.map(() => this.core.jobs.cancel(OWNER, id)));
        for (const outcome of outcomes) {
          if (outcome.alreadyFinished) expect(isTerminal(outcome.job.phase)).toBe(true);
          expect(
            outcome.job.result === null ||
              outcome.job.phase !== JobPhase.COMPLETED ||
              before?.phase === JobPhase.COMPLETED,
          ).toBe(true);
        }
        return;
      }
      case 'crash':
        STATS.crashes += 1;
        // The process dies: steps in flight are abandoned, nothing in memory survives.
        await this.app.close();
        this.app = await this.#open('follow');
        await this.app.start();
        return;
      case 'race': {
        STATS.races += 1;
        // A second server on the same store for one pass: duplicate starts, acks and polls.
        const other = await this.#open('ignore');
        await Promise.all([other.start(), this.settleDown()]);
        await other.scheduler?.idle();
        await other.close();
        return;
      }
      case 'dbfail':
        this.failing.n = a.n;
        return;
      case 'rtfail':
        this.runtime.failures.push(a.kind);
        return;
      case 'reconnect':
        await this.reconnectAll();
        return;
      case 'clock':
        this.clock.advance(a.ms);
        return;
    }
  }

  async reconnectAll(): Promise<void> {
    for (const { team } of this.teams) {
      const current = await this.store.findTeam(OWNER, team.id);
      if (current?.status === TeamStatus.DISCONNECTED) await this.core.teams.reconnect(OWNER, team.id);
    }
  }

  async check(): Promise<void> {
    const ids = [...this.seen.keys()];
    const jobs = await this.store.findJobs(ids);
    expect(jobs.length).toBe(ids.length);
    const active = await this.store.listActiveJobs();
    expect(active.length).toBeLessThanOrEqual(Limits.activeJobs);
    const owners = new Map<string, JobId>();
    for (const job of jobs) {
      const before = this.seen.get(job.id) as JobPhase;
      expect(REACHABLE_PHASES.get(before)?.has(job.phase), `${job.id}: ${before} -> ${job.phase}`).toBe(true);
      this.seen.set(job.id, job.phase);
      this.#checkRuns(job);
      if (!isTerminal(job.phase) && job.phase !== JobPhase.QUEUED) {
        // One job at a time owns a conversation (admitted, waiting or answered).
        expect(owners.get(job.conversationId)).toBeUndefined();
        owners.set(job.conversationId, job.id);
      }
    }
    expect(
      (await Promise.all(this.teams.map(({ team }) => this.store.countJobs(team.id)))).every((c) => c.receipts === 0),
    ).toBe(true);
  }

  #checkRuns(job: Job): void {
    const runs = this.runtime.runsOf(job.id);
    // No turn started twice: one run for the request, one per accepted answer at most.
    expect(runs.length).toBeLessThanOrEqual(1 + (this.answers.get(job.id)?.size ?? 0));
    expect(new Set(runs.map((r) => r.runKey)).size).toBe(runs.length);
    const run = job.runId === null ? undefined : this.runtime.byId(job.runId);
    if (job.phase === JobPhase.COMPLETED) {
      // Nothing is reported complete that did not complete.
      expect(run?.state).toEqual({ state: 'completed', answer: job.result?.text });
    }
    if (job.phase === JobPhase.WAITING_INPUT) {
      expect(run?.state.state).toBe('waiting');
      if (run?.state.state === 'waiting') expect(run.state.input.requestId).toBe(job.pendingInput?.requestId);
    }
  }

  /** Answers and finishes everything; then every request must have ended. */
  async finish(): Promise<void> {
    for (let round = 0; round < 60; round += 1) {
      this.failing.n = 0;
      this.runtime.failures = [];
      await this.reconnectAll();
      for (const run of this.runtime.running())
        this.runtime.settle(run, { state: 'completed', answer: `answer of ${run.runKey}` });
      for (const edge of (await this.core.jobs.inbox(OWNER, { first: 100 })).edges) {
        const job = edge.node;
        const value = job.pendingInput?.kind === 'CLARIFICATION' ? 'final' : { final: true };
        const key = `final-${job.id}-${job.pendingInput?.requestId}`;
        await this.core.jobs.respond(OWNER, { jobId: job.id, response: value, clientRequestId: key });
        const set = this.answers.get(job.id) ?? new Set();
        set.add(key);
        this.answers.set(job.id, set);
      }
      this.clock.advance(31_000);
      await this.settleDown();
      await this.check();
      const jobs = await this.store.findJobs([...this.seen.keys()]);
      if (jobs.every((job) => isTerminal(job.phase)) && this.runtime.running().length === 0) {
        for (const job of jobs) STATS.finished[job.phase] = (STATS.finished[job.phase] ?? 0) + 1;
        return;
      }
    }
    const left = (await this.store.findJobs([...this.seen.keys()])).filter((job) => !isTerminal(job.phase));
    throw new Error(`jobs never finished: ${left.map((j) => `${j.id}:${j.phase}`).join(', ')}`);
  }

  async close(): Promise<void> {
    await this.app?.close();
  }
}

describe('scheduler and state machine (model-based)', () => {
  it(
    `keeps the invariants under crashes, races, failures and clock jumps (${RUNS} sequences)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(action, { minLength: 15, maxLength: 60, size: 'max' }), async (actions) => {
          const world = new World();
          STATS.sequences += 1;
          STATS.actions += actions.length;
          try {
            await world.setUp();
            for (const a of actions) {
              await world.run(a);
              await world.settleDown();
              await world.check();
            }
            await world.finish();
          } finally {
            await world.close();
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      const file = process.env.AGENT_TEAMS_MODEL_STATS_FILE;
      if (file) writeFileSync(file, `${JSON.stringify({ runs: RUNS, ...STATS }, null, 2)}\n`);
      expect(STATS.finished.COMPLETED ?? 0).toBeGreaterThan(0);
    },
    Math.max(600_000, RUNS * 300),
  );
});
