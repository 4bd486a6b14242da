import { type Core, createCore, type EventSink, type JobId, type MemberToolPort } from '@agent-teams/core';
import { MemoryLogger, SequentialIds, StaticCatalog } from '@agent-teams/testkit';
import { createMemberRunTokens, type MemberRunTokens } from '../../src/adapters/member-run-tokens.js';
import { createRuntimeRegistry } from '../../src/adapters/runtime-registry.js';
import { createSystemClock } from '../../src/adapters/system-clock.js';
import { createTokenAuth } from '../../src/adapters/token-auth.js';
import { createEventHub } from '../../src/events/event-hub.js';
import { ScriptedRuntime } from '../../src/runtimes/scripted/scripted-runtime.js';
import { createScheduler, type Scheduler } from '../../src/scheduler/create-scheduler.js';
import { type AgentTeamsServer, createServer } from '../../src/server/create-server.js';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { openDatabase } from '../../src/storage/open-database.js';

/** Stands in for absent GraphQL data, so a missing field reads as undefined. */
export const NO_DATA: Readonly<Record<string, unknown>> = {};

/** The owner tokens every collaboration stack knows. */
export const OWNER_TOKENS = { alice: 'tok-alice', bob: 'tok-bob' } as const;

/** A GraphQL answer as the tests read it. */
export interface GqlAnswer {
  readonly data: Record<string, unknown> | null;
  readonly errors: readonly { message: string; extensions?: Record<string, unknown> }[];
}

/** The real server wired as `main.ts` wires it: scripted runtime, scheduler, member tools and tokens. */
export interface CollabStack {
  readonly server: AgentTeamsServer;
  readonly core: Core;
  readonly store: KyselyTeamStore;
  readonly tokens: MemberRunTokens;
  readonly scheduler: Scheduler | null;
  readonly logger: MemoryLogger;
  gql(query: string, variables?: Record<string, unknown>, token?: string | null): Promise<GqlAnswer>;
  /** Calls `invokeTeamTool` with a member-run token; answers the JSON result or the error code. */
  tool(token: string, name: string, args: unknown): Promise<{ value?: unknown; code?: unknown }>;
  /** Polls a job (as alice) until its status is one of `statuses`. */
  waitFor(jobId: string, statuses: readonly string[], timeoutMs?: number): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** Builds a stack on an in-memory SQLite database (or `database`, e.g. a PostgreSQL URL). */
export async function createCollabStack(opts: { scheduler?: boolean; database?: string } = {}): Promise<CollabStack> {
  const logger = new MemoryLogger();
  const clock = createSystemClock();
  const ids = new SequentialIds();
  const catalog = new StaticCatalog();
  const database = await openDatabase(opts.database ?? ':memory:');
  await migrateToLatest(database.db, database.dialect);
  const hub = createEventHub();
  const sinks: EventSink[] = [hub];
  const store = new KyselyTeamStore(database.db, database.dialect, {
    ids,
    events: {
      published: (events) => {
        for (const sink of sinks) sink.published(events);
      },
    },
  });
  const scripted = new ScriptedRuntime({ db: database.db, store, clock, logger, streamIntervalMs: 5 });
  const runtimes = createRuntimeRegistry([scripted]);
  const core = createCore({ store, catalog, runtimes, clock, ids, logger });
  const tokens = createMemberRunTokens(database.db, clock);
  const scheduler =
    opts.scheduler === false
      ? null
      : createScheduler({
          store,
          runtimes,
          catalog,
          clock,
          ids,
          logger,
          tools: (job): MemberToolPort => ({ ...core.tools.forJob(job.id), issueToken: () => tokens.issue(job) }),
        });
  if (scheduler) sinks.push(scheduler.eventSink);
  const server = createServer({
    core,
    authenticate: createTokenAuth(new Map(Object.entries(OWNER_TOKENS).map(([owner, token]) => [token, owner]))),
    memberRunTokens: tokens,
    eventHub: hub,
    progress: () => () => undefined,
    logger,
  });
  await scheduler?.start();

  const gql: CollabStack['gql'] = async (query, variables = {}, token = OWNER_TOKENS.alice) => {
    const response = await server.yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as { data?: Record<string, unknown> | null; errors?: GqlAnswer['errors'] };
    return { data: body.data ?? null, errors: body.errors ?? [] };
  };

  return {
    server,
    core,
    store,
    tokens,
    scheduler,
    logger,
    gql,
    async tool(token, name, args) {
      const answer = await gql(
        'mutation($input: InvokeTeamToolInput!) { invokeTeamTool(input: $input) }',
        { input: { name, arguments: args } },
        token,
      );
      if (answer.errors.length > 0) return { code: answer.errors[0]?.extensions?.code };
      return { value: (answer.data ?? NO_DATA).invokeTeamTool };
    },
    async waitFor(jobId, statuses, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { data } = await gql('query($id: ID!) { job(id: $id) { id status error result { text } } }', {
          id: jobId,
        });
        const job = (data ?? NO_DATA).job as Record<string, unknown> | null;
        if (job && statuses.includes(String(job.status))) return job;
        if (Date.now() > deadline) throw new Error(`job ${jobId} never reached ${statuses}: ${JSON.stringify(job)}`);
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
    },
    async close() {
      await scheduler?.stop();
      await server.close();
      await store.close();
      await database.close();
    },
  };
}

/** Waits until `check` answers a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
}

/** Issues a member-run token for a job by id. */
export async function tokenFor(stack: CollabStack, jobId: string): Promise<string> {
  const [job] = await stack.store.findJobs([jobId as JobId]);
  if (!job) throw new Error(`no job ${jobId}`);
  return stack.tokens.issue(job);
}

/** A created team: its id and at least two members, in roster order. */
export interface PairTeam {
  readonly id: string;
  readonly members: readonly [TeamMember, TeamMember, ...TeamMember[]];
}

/** A member as the tests use it. */
export interface TeamMember {
  readonly id: string;
  readonly name: string;
}

let counter = 0;

/** Creates a team of Ada and Bob (scripted agents) as alice, or as `token`'s owner. */
export async function createPair(
  stack: CollabStack,
  token: string = OWNER_TOKENS.alice,
  names: readonly string[] = ['Ada', 'Bob'],
): Promise<PairTeam> {
  counter += 1;
  const agents = ['researcher', 'writer', 'reviewer'];
  const answer = await stack.gql(
    `mutation($input: CreateTeamInput!) { createTeam(input: $input) { team { id members { id name } } } }`,
    {
      input: {
        clientRequestId: `collab-${counter}`,
        name: `Collab ${counter}`,
        goal: 'Work together',
        members: names.map((name, i) => ({ name, agentId: agents[i % agents.length] })),
      },
    },
    token,
  );
  if (answer.errors.length > 0) throw new Error(JSON.stringify(answer.errors));
  const team = ((answer.data ?? NO_DATA).createTeam as { team: PairTeam }).team;
  // Member conversations are ensured right after creation; wait for READY so work is admitted.
  await eventually(async () => {
    const { data } = await stack.gql('query($id: ID!) { team(id: $id) { status } }', { id: team.id }, token);
    return ((data ?? NO_DATA).team as { status: string } | null)?.status === 'READY' ? true : undefined;
  }, 'team READY');
  return team;
}

/** Sends a person's request to one member; returns the job id. */
export async function ask(
  stack: CollabStack,
  teamId: string,
  memberId: string,
  text: string,
  token: string = OWNER_TOKENS.alice,
): Promise<string> {
  counter += 1;
  const answer = await stack.gql(
    'mutation($input: SendRequestInput!) { sendRequest(input: $input) { jobs { id } } }',
    { input: { teamId, memberIds: [memberId], text, clientRequestId: `ask-${counter}` } },
    token,
  );
  if (answer.errors.length > 0) throw new Error(JSON.stringify(answer.errors));
  return ((answer.data ?? NO_DATA).sendRequest as { jobs: { id: string }[] }).jobs[0]?.id as string;
}
