import {
  type AgentDefinition,
  asAgentId,
  DEFAULT_ADMISSION_POLICY,
  type JobId,
  type Member,
  type OwnerId,
  type TeamEvent,
} from '@agent-teams/core';
import { createConfigCatalog } from '../../src/adapters/config-catalog.js';
import type { App, AppRuntime } from '../../src/app/create-app.js';
import { createApp } from '../../src/app/create-app.js';
import { defaultRuntimes } from '../../src/app/default-runtimes.js';
import type { OpenedDatabase } from '../../src/storage/open-database.js';
import { monotonicMs } from '../live-clock.js';
import { BENCH_LOGGER } from './bench-stack.js';
import { type LocalChatProvider, type ProviderTiming, startLocalChatProvider } from './local-chat-provider.js';

/** The model name the fake provider is asked for. */
export const MODEL = 'bench-instant';
/** What the fake provider answers to every call. */
export const INSTANT_ANSWER = 'Instant answer.';

/** The bytes of {@link FULL_ANSWER}. */
export const FULL_ANSWER_BYTES = 2_800;

/**
 * What the fake provider answers in the rounds with full answers: 2,800 bytes, so a team's newest
 * records fill its shared context (about 23 KB of the 24,000 bytes each frozen turn carries) and
 * each member's history grows by a full answer per turn, as with agents that write full answers.
 */
export const FULL_ANSWER = 'A full answer. '.repeat(Math.ceil(FULL_ANSWER_BYTES / 15)).slice(0, FULL_ANSWER_BYTES);

/** Which answer the fake provider gives in a round. */
export type RoundAnswer = 'instant' | 'full';

/** Times seen along one turn, keyed by job (all `monotonicMs()`, comparable across processes). */
export interface TurnTrace {
  /** Commit times of the batches that carried an event of this job, in order. */
  readonly commits: { readonly at: number; readonly kinds: readonly string[] }[];
  start?: number;
  polls: number[];
  provider?: ProviderTiming;
}

/** A served application whose members run on the `openai` runtime against a local fake provider. */
export interface TurnStack {
  readonly app: App;
  readonly url: string;
  /** The in-process provider, or null when the agent calls one at `providerBaseUrl`. */
  readonly provider: LocalChatProvider | null;
  /** The trace of a job (created on first use); the benchmark adds the provider's timing itself. */
  trace(jobId: string): TurnTrace;
  /** Forgets every trace (between rounds). */
  clearTraces(): void;
  /** A READY team of two `openai` members for `owner`. */
  team(owner: OwnerId): Promise<{ teamId: string; members: Member[] }>;
  close(): Promise<void>;
}

let teams = 0;

/**
 * Builds the application as `serve` does (`createApp`, default runtimes, SQLite file), with one
 * agent on the `openai` runtime whose `baseUrl` is a local fake provider, listening on loopback;
 * records, per job, the commits that carried its events, the runtime `start` and `poll` calls and
 * the provider's receive and answer times.
 */
export async function openTurnStack(
  database: OpenedDatabase,
  tokens: ReadonlyMap<string, string>,
  providerBaseUrl?: string,
): Promise<TurnStack> {
  const provider = providerBaseUrl === undefined ? await startLocalChatProvider(INSTANT_ANSWER, monotonicMs) : null;
  const baseUrl = provider?.baseUrl ?? (providerBaseUrl as string);
  const agent: AgentDefinition = {
    id: asAgentId('modeler'),
    name: 'modeler',
    title: 'Modeler',
    description: 'answers from the local fake provider (benchmark)',
    runtime: 'openai',
    timeoutMs: 60_000,
    settings: { model: MODEL, baseUrl, apiKeyEnv: null },
  };
  const traces = new Map<string, TurnTrace>();
  const trace = (jobId: string): TurnTrace => {
    let found = traces.get(jobId);
    if (!found) {
      found = { commits: [], polls: [] };
      traces.set(jobId, found);
    }
    return found;
  };
  const onEvents = (events: readonly TeamEvent[]) => {
    const at = monotonicMs();
    const kinds = new Map<string, string[]>();
    for (const event of events) {
      if (event.jobId === null) continue;
      const list = kinds.get(event.jobId) ?? [];
      list.push(event.kind);
      kinds.set(event.jobId, list);
    }
    for (const [jobId, list] of kinds) trace(jobId).commits.push({ at, kinds: list });
  };
  const app = await createApp({
    database,
    catalog: createConfigCatalog([agent]),
    logger: BENCH_LOGGER,
    cluster: false,
    env: {},
    tokens,
    events: { published: onEvents },
    http: { rateLimit: null },
    // Eight concurrent turns of one owner: every slot is the owner's (nobody else is waiting).
    scheduler: { admission: { ...DEFAULT_ADMISSION_POLICY, reservedForOthers: 0 } },
    runtimes: (parts) =>
      defaultRuntimes(parts).map((runtime) => (runtime.name === 'openai' ? watch(runtime) : runtime)),
  });
  function watch(runtime: AppRuntime): AppRuntime {
    return {
      name: runtime.name,
      ensureConversation: (args) => runtime.ensureConversation(args),
      start: (args) => {
        // The first call: a step after the acknowledgement grace starts the run again with its key.
        trace(args.context.jobId).start ??= monotonicMs();
        return runtime.start(args);
      },
      resume: (args) => runtime.resume(args),
      poll: (args) => {
        trace(args.context.jobId).polls.push(monotonicMs());
        return runtime.poll(args);
      },
      ...(runtime.persist === undefined ? {} : { persist: (args) => runtime.persist?.(args) ?? Promise.resolve() }),
      cancel: (args) => runtime.cancel(args),
      subscribe: (listener) => runtime.subscribe(listener),
      dispose: () => runtime.dispose?.() ?? Promise.resolve(),
    };
  }
  const { url } = await app.listen(0, '127.0.0.1');
  return {
    app,
    url,
    provider,
    trace(jobId: JobId | string) {
      return trace(jobId);
    },
    clearTraces() {
      traces.clear();
    },
    async team(owner) {
      teams += 1;
      const team = await app.core.teams.create(owner, {
        clientRequestId: `turn-team-${teams}`,
        name: `Turn team ${teams}`,
        goal: 'Measure the turn overhead',
        members: [
          { name: 'a', agentId: 'modeler' },
          { name: 'b', agentId: 'modeler' },
        ],
      });
      return { teamId: team.id, members: [...(await app.core.teams.members([team.id]))] };
    },
    async close() {
      await app.close();
      await provider?.close();
    },
  };
}
