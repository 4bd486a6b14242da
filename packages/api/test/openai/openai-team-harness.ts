import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  asOwnerId,
  type BudgetPolicy,
  type Core,
  type Job,
  type JobId,
  type Member,
  type Team,
  type TeamStore,
} from '@agent-teams/core';
import { type AgentSpec, StaticCatalog } from '@agent-teams/testkit';
import { FakeChatProvider } from '@agent-teams/testkit/msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { createRandomIds } from '../../src/adapters/random-ids.js';
import type { App } from '../../src/app/create-app.js';
import type { JobProgressNotice } from '../../src/events/progress-hub.js';
import { OpenAiRuntime } from '../../src/runtimes/openai/openai-runtime.js';
import type { Scheduler } from '../../src/scheduler/create-scheduler.js';
import type { OpenedDatabase } from '../../src/storage/open-database.js';
import { loopbackOrError, serveChatProvider } from '../support/chat-provider-server.js';
import { openTestApp } from '../support/test-app.js';

export const OWNER = asOwnerId('alice');
export const BASE_URL = 'https://team-llm.test/v1';

/** Two `openai` agents on different models and prices, served by one fake provider. */
export const TEAM_AGENTS: readonly AgentSpec[] = [
  {
    name: 'planner',
    title: 'Planner',
    runtime: 'openai',
    settings: {
      model: 'model-lead',
      baseUrl: BASE_URL,
      apiKeyEnv: 'TEAM_TEST_KEY',
      pricing: { inputPerMillion: 1, outputPerMillion: 2 },
    },
  },
  {
    name: 'checker',
    title: 'Checker',
    runtime: 'openai',
    settings: {
      model: 'model-review',
      baseUrl: BASE_URL,
      apiKeyEnv: 'TEAM_TEST_KEY',
      pricing: { inputPerMillion: 10, outputPerMillion: 20 },
    },
  },
];

/** The application (`createApp`) with the `openai` runtime, started, on a SQLite file or the database given. */
export interface TeamHarness {
  readonly app: App;
  readonly provider: FakeChatProvider;
  readonly database: OpenedDatabase;
  readonly store: TeamStore;
  readonly core: Core;
  readonly scheduler: Scheduler;
  readonly progress: JobProgressNotice[];
  team(): Promise<{ team: Team; lead: Member; reviewer: Member }>;
  send(team: Team, member: Member, text: string): Promise<Job>;
  job(id: JobId): Promise<Job>;
  close(): Promise<void>;
}

let counter = 0;

/** Options of {@link openTeamHarness}. */
export interface TeamHarnessOptions {
  /** Owners' daily budgets (`budgets` of the configuration file). */
  readonly budgets?: BudgetPolicy;
  /** How long a started run's acknowledgement waits for it to settle (the scheduler's default otherwise). */
  readonly ackGraceMs?: number;
  /** Replaces both agents' `pricing`. */
  readonly pricing?: Readonly<Record<string, unknown>>;
  /** The database, as a SQLite path or a PostgreSQL URL (default: a new SQLite file). */
  readonly database?: string;
  /** Both agents' turn deadline (`timeoutMs`; the default otherwise). */
  readonly timeoutMs?: number;
  /** Set in both agents' settings over the rest (`baseUrl`: a test's own provider instead of `provider`). */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** How long a run's final write waits for its job write (`AppOptions.rideWaitMs`; the default otherwise). */
  readonly rideWaitMs?: number;
}

export async function openTeamHarness(opts: TeamHarnessOptions = {}): Promise<TeamHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-teams-openai-'));
  const provider = new FakeChatProvider();
  // Served over real HTTP, and the agents call that: a test sees what a model call does to its
  // connection (a cancelled turn closes it). A file's msw server only refuses any other request.
  const served = await serveChatProvider(provider);
  const agents = TEAM_AGENTS.map((agent) => ({
    ...agent,
    ...(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }),
    settings: {
      ...agent.settings,
      baseUrl: served.baseUrl,
      ...(opts.pricing ? { pricing: opts.pricing } : {}),
      ...opts.settings,
    },
  }));
  const app = await openTestApp({
    database: opts.database ?? join(dir, 'teams.sqlite'),
    ids: createRandomIds(),
    catalog: new StaticCatalog(agents),
    ...(opts.budgets ? { budgets: opts.budgets } : {}),
    ...(opts.ackGraceMs === undefined ? {} : { scheduler: { ackGraceMs: opts.ackGraceMs } }),
    ...(opts.rideWaitMs === undefined ? {} : { rideWaitMs: opts.rideWaitMs }),
    runtimes: ({ database, clock, logger, spend, rides }) => [
      new OpenAiRuntime({
        db: (database as OpenedDatabase).db,
        dialect: (database as OpenedDatabase).dialect,
        clock,
        logger,
        env: { TEAM_TEST_KEY: 'sk-team' },
        retryBaseMs: 5,
        spend,
        rides,
      }),
    ],
  });
  const progress: JobProgressNotice[] = [];
  app.progress.listen((notice) => progress.push(notice));
  const { core, store, scheduler, database } = app;
  if (scheduler === null || database === null) throw new Error('incomplete harness');
  return {
    app,
    provider,
    database,
    store,
    core,
    scheduler,
    progress,
    async team() {
      counter += 1;
      const team = await core.teams.create(OWNER, {
        clientRequestId: `team-${counter}`,
        name: `Team ${counter}`,
        goal: 'Ship the release',
        members: [
          { name: 'lead', agentId: 'planner', role: 'Plans the release', lead: true },
          { name: 'reviewer', agentId: 'checker' },
        ],
      });
      const members = await core.teams.members([team.id]);
      const byName = (name: string) => {
        const member = members.find((m) => m.name === name);
        if (!member) throw new Error(`no member ${name}`);
        return member;
      };
      return { team, lead: byName('lead'), reviewer: byName('reviewer') };
    },
    async send(team, member, text) {
      counter += 1;
      const [job] = await core.requests.send(OWNER, {
        teamId: team.id,
        memberIds: [member.id],
        text,
        clientRequestId: `req-${counter}`,
      });
      if (!job) throw new Error('no job');
      return job;
    },
    async job(id) {
      const [job] = await store.findJobs([id]);
      if (!job) throw new Error(`no job ${id}`);
      return job;
    },
    async close() {
      await app.close();
      await served.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export { waitFor } from '../scheduler/scheduler-harness.js';

/**
 * One msw server for the test file and a fresh {@link TeamHarness} per test (closed after it).
 * @returns an accessor for the current test's harness.
 */
export function teamHarnessPerTest(): () => TeamHarness {
  const server = setupServer();
  let current: TeamHarness | null = null;
  beforeAll(() => server.listen({ onUnhandledRequest: loopbackOrError }));
  afterAll(() => server.close());
  beforeEach(async () => {
    current = await openTeamHarness();
  });
  afterEach(async () => {
    await current?.close();
    current = null;
    server.resetHandlers();
  });
  return () => {
    if (current === null) throw new Error('[agent-teams/api] the team harness is used outside a test');
    return current;
  };
}
