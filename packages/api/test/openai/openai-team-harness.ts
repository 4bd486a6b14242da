import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asOwnerId, type Core, createCore, type Job, type JobId, type Member, type Team } from '@agent-teams/core';
import { type AgentSpec, MemoryLogger, StaticCatalog } from '@agent-teams/testkit';
import { chatCompletionHandler, FakeChatProvider } from '@agent-teams/testkit/msw';
import { http } from 'msw';
import type { SetupServer } from 'msw/node';
import { createRandomIds } from '../../src/adapters/random-ids.js';
import { createRuntimeRegistry } from '../../src/adapters/runtime-registry.js';
import { OpenAiRuntime } from '../../src/runtimes/openai/openai-runtime.js';
import { createScheduler, type JobProgressEvent, type Scheduler } from '../../src/scheduler/create-scheduler.js';
import { createWakeSink } from '../../src/scheduler/wake-sink.js';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';

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

/** A real SQLite file, store, `openai` runtime, core with its member tools, and a started scheduler. */
export interface TeamHarness {
  readonly provider: FakeChatProvider;
  readonly database: OpenedDatabase;
  readonly store: KyselyTeamStore;
  readonly core: Core;
  readonly scheduler: Scheduler;
  readonly progress: JobProgressEvent[];
  team(): Promise<{ team: Team; lead: Member; reviewer: Member }>;
  send(team: Team, member: Member, text: string): Promise<Job>;
  job(id: JobId): Promise<Job>;
  close(): Promise<void>;
}

let counter = 0;

export async function openTeamHarness(server: SetupServer): Promise<TeamHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-teams-openai-'));
  const provider = new FakeChatProvider();
  server.use(chatCompletionHandler(http, BASE_URL, provider));
  const database = await openDatabase(join(dir, 'teams.sqlite'));
  await migrateToLatest(database.db, database.dialect);
  const logger = new MemoryLogger();
  const clock = { nowMs: () => Date.now() };
  const ids = createRandomIds();
  const wakeSink = createWakeSink();
  const store = new KyselyTeamStore(database.db, database.dialect, { events: wakeSink, ids });
  const runtime = new OpenAiRuntime({
    db: database.db,
    dialect: database.dialect,
    clock,
    logger,
    env: { TEAM_TEST_KEY: 'sk-team' },
    retryBaseMs: 5,
  });
  const runtimes = createRuntimeRegistry([runtime]);
  const catalog = new StaticCatalog(TEAM_AGENTS);
  const core = createCore({ store, catalog, runtimes, clock, ids, logger });
  const progress: JobProgressEvent[] = [];
  const scheduler = createScheduler({
    store,
    runtimes,
    catalog,
    clock,
    ids,
    logger,
    tools: (job) => core.tools.forJob(job.id),
    wakeSink,
    onProgress: (event) => progress.push(event),
  });
  await scheduler.start();
  return {
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
          { name: 'lead', agentId: 'planner' },
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
      await scheduler.stop();
      runtime.dispose();
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until `check` answers a truthy value (polling, with a deadline). */
export async function waitFor<T>(
  check: () => Promise<T> | T,
  what: string,
  timeoutMs = 15_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
