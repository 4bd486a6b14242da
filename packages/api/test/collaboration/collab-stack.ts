import type { AgentDefinition, Core, JobId, TeamStore } from '@agent-teams/core';
import { type MemoryLogger, StaticCatalog } from '@agent-teams/testkit';
import { afterAll, beforeAll } from 'vitest';
import type { MemberRunTokens } from '../../src/adapters/member-run-tokens.js';
import type { App, AppRuntime, RuntimeParts } from '../../src/app/create-app.js';
import type { JobProgressNotice } from '../../src/events/progress-hub.js';
import { eventually, gqlOf, openTestApp, TOKENS } from '../support/test-app.js';

export { eventually };

/** Stands in for absent GraphQL data, so a missing field reads as undefined. */
export const NO_DATA: Readonly<Record<string, unknown>> = {};

/** The owner tokens every collaboration stack knows. */
export const OWNER_TOKENS = TOKENS;

/** A GraphQL answer as the tests read it. */
export interface GqlAnswer {
  readonly data: Record<string, unknown> | null;
  readonly errors: readonly { message: string; extensions?: Record<string, unknown> }[];
}

/** The application built by `createApp`: scripted runtime, scheduler, member tools and tokens. */
export interface CollabStack {
  readonly app: App;
  readonly core: Core;
  readonly store: TeamStore;
  readonly tokens: MemberRunTokens;
  readonly logger: MemoryLogger;
  gql(query: string, variables?: Record<string, unknown>, token?: string | null): Promise<GqlAnswer>;
  /** Calls `invokeTeamTool` with a member-run token; answers the JSON result or the error code. */
  tool(token: string, name: string, args: unknown): Promise<{ value?: unknown; code?: unknown }>;
  /** Cancels a job as alice (`cancelJob`). */
  cancel(jobId: string): Promise<GqlAnswer>;
  /** Polls a job (as alice) until its status is one of `statuses`. */
  waitFor(jobId: string, statuses: readonly string[], timeoutMs?: number): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** What a collaboration stack may be built with besides its defaults. */
export interface CollabStackOptions {
  readonly scheduler?: boolean;
  /** SQLite file or PostgreSQL URL (default: SQLite in memory). */
  readonly database?: string;
  /** The agent catalog (default: the three scripted demo agents). */
  readonly agents?: readonly AgentDefinition[];
  /** More runtimes beside the scripted one, built over the application's parts. */
  readonly runtimes?: (parts: RuntimeParts) => readonly AppRuntime[];
  /** Told about every progress notice the application publishes. */
  readonly onProgress?: (notice: JobProgressNotice) => void;
}

/** Builds a stack on an in-memory SQLite database (or `database`, e.g. a PostgreSQL URL). */
export async function createCollabStack(opts: CollabStackOptions = {}): Promise<CollabStack> {
  const app = await openTestApp({
    ...(opts.database ? { database: opts.database } : {}),
    ...(opts.scheduler === false ? { scheduler: false } : {}),
    ...(opts.agents ? { catalog: new StaticCatalog(opts.agents) } : {}),
    ...(opts.runtimes ? { moreRuntimes: opts.runtimes } : {}),
  });
  if (opts.onProgress) app.progress.listen(opts.onProgress);
  const tokens = app.memberRunTokens;
  if (tokens === null) throw new Error('a SQL application issues member-run tokens');
  const gql = gqlOf(app);
  return {
    app,
    core: app.core,
    store: app.store,
    tokens,
    logger: app.logger,
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
    cancel: (jobId) => gql('mutation($id: ID!) { cancelJob(input: {jobId: $id}) { job { id } } }', { id: jobId }),
    waitFor: (jobId, statuses, timeoutMs = 20_000) =>
      eventually(
        async () => {
          const { data } = await gql('query($id: ID!) { job(id: $id) { id status error result { text } } }', {
            id: jobId,
          });
          const job = (data ?? NO_DATA).job as Record<string, unknown> | null;
          return job && statuses.includes(String(job.status)) ? job : undefined;
        },
        `job ${jobId} in ${statuses.join('/')}`,
        timeoutMs,
      ),
    close: () => app.close(),
  };
}

/** One stack for the whole test file: `set` receives it before the tests; it is closed after them. */
export function stackPerFile(set: (stack: CollabStack) => void): void {
  let stack: CollabStack | null = null;
  beforeAll(async () => {
    stack = await createCollabStack();
    set(stack);
  });
  afterAll(async () => stack?.close());
}

/** A stack and a team of Ada and Bob for a whole test file, listening on loopback unless `listen` is false. */
export interface PairFixture {
  readonly stack: CollabStack;
  readonly team: PairTeam;
  /** The base URL; empty when the file talks to the server through `yoga.fetch` only. */
  readonly url: string;
}

/** Builds a {@link PairFixture} before the file's tests and closes it after them; `set` receives it. */
export function pairPerFile(
  set: (fixture: PairFixture) => void | Promise<void>,
  opts: CollabStackOptions & { readonly listen?: boolean } = {},
): void {
  let stack: CollabStack | null = null;
  beforeAll(async () => {
    const { listen, ...stackOptions } = opts;
    stack = await createCollabStack(stackOptions);
    const url = listen === false ? '' : (await stack.app.server.listen(0, '127.0.0.1')).url;
    await set({ stack, team: await createPair(stack), url });
  });
  afterAll(async () => stack?.close());
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
    return ((data ?? NO_DATA).team as { status: string } | null)?.status === 'READY';
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
