import {
  type AgentDefinition,
  asAgentId,
  asConversationId,
  asJobId,
  asMemberId,
  asRunId,
  asTeamId,
  DomainError,
  type MemberToolPort,
  type RunContext,
  type RunState,
  type RuntimeNotice,
  type TurnInput,
} from '@agent-teams/core';
import { MemoryLogger } from '@agent-teams/testkit';
import { chatCompletionHandler, FakeChatProvider } from '@agent-teams/testkit/msw';
import type { KyselyPlugin } from 'kysely';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { OpenAiRuntime } from '../../src/runtimes/openai/openai-runtime.js';
import type { SpendGuard } from '../../src/runtimes/spend-guard.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';
import type { RunRides } from '../../src/storage/run-rides.js';
import { loopbackOrError } from '../support/chat-provider-server.js';

export const BASE_URL = 'https://llm.test/v1';
export const API_KEY = 'sk-test-key';

/** One msw server for the file; each test gets a fresh provider, database and runtime. */
export const server = setupServer();

/** An `openai` agent pointing at the fake provider. */
export function openAiAgent(settings: Record<string, unknown> = {}, timeoutMs = 30_000): AgentDefinition {
  return {
    id: asAgentId('analyst'),
    name: 'analyst',
    title: 'Analyst',
    description: 'd',
    runtime: 'openai',
    timeoutMs,
    settings: {
      model: 'gpt-test',
      baseUrl: BASE_URL,
      apiKeyEnv: 'TEST_OPENAI_KEY',
      pricing: { inputPerMillion: 2, outputPerMillion: 8 },
      ...settings,
    },
  };
}

/** Member tools whose calls never end, as in a process that dies while a tool runs. */
export class StuckTools implements MemberToolPort {
  /** Whether a call began. */
  started = false;
  invoke(): Promise<never> {
    this.started = true;
    return new Promise<never>(() => {});
  }
}

/** Member tools that record calls and answer from a table (or refuse with NOT_AVAILABLE_YET). */
export class RecordingTools implements MemberToolPort {
  readonly calls: { name: string; args: unknown }[] = [];
  constructor(readonly answers: Record<string, unknown> = {}) {}
  async invoke(name: string, args: unknown): Promise<unknown> {
    this.calls.push({ name, args });
    if (name in this.answers) return this.answers[name];
    throw new DomainError('NOT_AVAILABLE_YET', `no ${name}`);
  }
}

export interface RuntimeFixture {
  provider: FakeChatProvider;
  database: OpenedDatabase;
  runtime: OpenAiRuntime;
  logger: MemoryLogger;
  notices: RuntimeNotice[];
  env: Record<string, string | undefined>;
  /** A fresh runtime over the same database (a restart). */
  restart(): OpenAiRuntime;
}

/** Registers msw and per-test hooks; returns an accessor for the current fixture. */
export function useRuntimeFixture(
  open: () => Promise<OpenedDatabase> = () => openDatabase(':memory:'),
): () => RuntimeFixture {
  let current: RuntimeFixture | null = null;
  beforeAll(() => server.listen({ onUnhandledRequest: loopbackOrError }));
  afterAll(() => server.close());
  beforeEach(async () => {
    const provider = new FakeChatProvider();
    server.use(chatCompletionHandler(http, BASE_URL, provider));
    const database = await open();
    await migrateToLatest(database.db, database.dialect);
    const logger = new MemoryLogger();
    const notices: RuntimeNotice[] = [];
    const env: Record<string, string | undefined> = { TEST_OPENAI_KEY: API_KEY };
    const make = () => {
      const runtime = new OpenAiRuntime({
        db: database.db,
        dialect: database.dialect,
        clock: { nowMs: () => Date.now() },
        logger,
        env,
        retryBaseMs: 5,
      });
      runtime.subscribe((notice) => notices.push(notice));
      return runtime;
    };
    const runtime = make();
    current = { provider, database, runtime, logger, notices, env, restart: make };
  });
  afterEach(async () => {
    current?.runtime.dispose();
    server.resetHandlers();
    await current?.database.close();
    current = null;
  });
  return () => {
    if (current === null) throw new Error('fixture used outside a test');
    return current;
  };
}

/** Another runtime over the fixture's database: its own clock, or the database seen through a Kysely plugin. */
export function runtimeOver(
  current: RuntimeFixture,
  options: {
    readonly nowMs?: () => number;
    readonly plugin?: KyselyPlugin;
    /** Where the final writes wait for a job write (decision 0221). */
    readonly rides?: RunRides;
    readonly spend?: SpendGuard;
  } = {},
): OpenAiRuntime {
  const { database, logger, env } = current;
  return new OpenAiRuntime({
    db: options.plugin ? database.db.withPlugin(options.plugin) : database.db,
    dialect: database.dialect,
    clock: { nowMs: options.nowMs ?? (() => Date.now()) },
    logger,
    env,
    retryBaseMs: 5,
    ...(options.rides ? { rides: options.rides } : {}),
    ...(options.spend ? { spend: options.spend } : {}),
  });
}

export function context(
  jobId: string,
  agent: AgentDefinition,
  tools: MemberToolPort = new RecordingTools(),
): RunContext {
  return {
    teamId: asTeamId('team_1'),
    jobId: asJobId(jobId),
    memberId: asMemberId('member_1'),
    conversationId: asConversationId('conversation_1'),
    agent,
    tools,
  };
}

export function requestInput(jobId: string, text: string): TurnInput {
  return {
    kind: 'request',
    jobId: asJobId(jobId),
    teamId: asTeamId('team_1'),
    text,
    memberName: 'Analyst',
    requesterName: null,
    receipt: null,
    context: { team_id: 'team_1', goal: 'Ship it', members: [], messages: [] },
  };
}

/** Polls until the run leaves `running` (deadline 10 s). */
export async function settle(runtime: OpenAiRuntime, runId: string, ctx: RunContext): Promise<RunState> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const state = await runtime.poll({ runId: asRunId(runId), context: ctx });
    if (state.state !== 'running') return state;
    if (Date.now() > deadline) throw new Error(`run ${runId} still running`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Waits for a condition with a deadline. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export { HttpResponse };
