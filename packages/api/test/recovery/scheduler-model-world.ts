// Shared by scheduler-model.test.ts and scheduler-model-invariants.ts: the world the model-based test drives.
import {
  asOwnerId,
  type Core,
  DomainError,
  ErrorCode,
  type EventSink,
  isTerminal,
  type JobId,
  JobPhase,
  type Team,
  TeamStatus,
} from '@agent-teams/core';
import {
  createMemoryTeamStore,
  DEMO_AGENTS,
  FakeClock,
  MemoryLogger,
  SequentialIds,
  StaticCatalog,
} from '@agent-teams/testkit';
import { expect } from 'vitest';
import { type App, createApp } from '../../src/app/create-app.js';
import { ModelRuntime } from './model-runtime.js';
import { type Action, failingStore, INJECTED } from './scheduler-model-actions.js';
import { checkInvariants } from './scheduler-model-invariants.js';

/** The owner of every team and request of the model. */
const OWNER = asOwnerId('alice');
/** Figures over all sequences, written to `AGENT_TEAMS_MODEL_STATS_FILE` when set (`pnpm chaos`). */
export const STATS = {
  sequences: 0,
  actions: 0,
  requests: 0,
  crashes: 0,
  races: 0,
  answers: 0,
  finished: {} as Record<string, number>,
};

/**
 * The system under test with what the model knows of it: a shared in-memory store, the model
 * runtime, a fake clock, and the application over them (replaced on a crash).
 */
export class World {
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

  /** Checks the invariants after a step (`scheduler-model-invariants.ts`). */
  check(): Promise<void> {
    return checkInvariants(this);
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
