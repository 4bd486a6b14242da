import {
  type AgentRuntime,
  asOwnerId,
  type ConversationId,
  type Core,
  type CreateTeamInput,
  createCore,
  DomainError,
  type ErrorCode,
  type Member,
  type OwnerId,
  type RuntimeRegistry,
  type Team,
} from '@agent-teams/core';
import { expect } from 'vitest';
import {
  createMemoryTeamStore,
  FakeClock,
  MemoryLogger,
  type MemoryTeamStore,
  SequentialIds,
  StaticCatalog,
} from '../src/index.js';

/** A runtime that only records `ensureConversation` calls and can be told to fail them. */
export class EnsureOnlyRuntime implements AgentRuntime {
  readonly name = 'scripted';
  readonly ensured: { conversationId: ConversationId; title: string }[] = [];
  failEnsure = false;

  async ensureConversation(args: { conversationId: ConversationId; title: string }): Promise<void> {
    if (this.failEnsure) throw new Error('runtime unreachable');
    if (!this.ensured.some((e) => e.conversationId === args.conversationId)) {
      this.ensured.push({ conversationId: args.conversationId, title: args.title });
    }
  }
  start(): never {
    throw new Error('not used by core service tests');
  }
  resume(): never {
    throw new Error('not used by core service tests');
  }
  poll(): never {
    throw new Error('not used by core service tests');
  }
  cancel(): never {
    throw new Error('not used by core service tests');
  }
  subscribe(): () => void {
    return () => {};
  }
}

/** Everything a core service test touches. */
export interface Harness {
  readonly core: Core;
  readonly store: MemoryTeamStore;
  readonly clock: FakeClock;
  readonly ids: SequentialIds;
  readonly catalog: StaticCatalog;
  readonly runtime: EnsureOnlyRuntime;
  readonly logger: MemoryLogger;
}

/** A core over the in-memory store, a fake clock, sequential ids and (by default) the demo catalog. */
export function harness(options: { catalog?: StaticCatalog } = {}): Harness {
  const ids = new SequentialIds();
  const store = createMemoryTeamStore({ ids });
  const clock = new FakeClock();
  const catalog = options.catalog ?? new StaticCatalog();
  const runtime = new EnsureOnlyRuntime();
  const logger = new MemoryLogger();
  const runtimes: RuntimeRegistry = { get: (name) => (name === runtime.name ? runtime : null) };
  const core = createCore({
    store,
    catalog,
    runtimes,
    clock,
    ids,
    logger,
  });
  return { core, store, clock, ids, catalog, runtime, logger };
}

export const alice: OwnerId = asOwnerId('alice');
export const bob: OwnerId = asOwnerId('bob');

/** A valid creation input; `overrides` replace whole fields. */
export function teamInput(overrides: Partial<CreateTeamInput> = {}): CreateTeamInput {
  return {
    clientRequestId: 'create-1',
    name: 'Alpha',
    goal: 'Ship the quarterly report',
    members: [
      { name: 'Scout', agentId: 'researcher' },
      { name: 'Critic', agentId: 'reviewer' },
    ],
    ...overrides,
  };
}

/** Creates a READY team for `owner` and returns it with its members. */
export async function readyTeam(h: Harness, owner: OwnerId = alice, overrides: Partial<CreateTeamInput> = {}) {
  const team: Team = await h.core.teams.create(owner, teamInput(overrides));
  const members = await h.core.teams.members([team.id]);
  return { team, members };
}

/** A READY team of alice's with a lead and two teammates (Lead, Scout, Critic). */
export async function leadTeam(h: Harness) {
  const { team, members } = await readyTeam(h, alice, {
    members: [
      { name: 'Lead', agentId: 'researcher', lead: true },
      { name: 'Scout', agentId: 'researcher' },
      { name: 'Critic', agentId: 'reviewer' },
    ],
  });
  const [lead, scout, critic] = members as [Member, Member, Member];
  return { team, lead, scout, critic };
}

/** Sends one request as alice to `memberId` (default key `r1`); returns the job. */
export async function sendOne(h: Harness, teamId: string, memberId: string, text: string, clientRequestId = 'r1') {
  const [job] = await h.core.requests.send(alice, { teamId, memberIds: [memberId], text, clientRequestId });
  if (!job) throw new Error('no job');
  return job;
}

export async function domainError(action: () => Promise<unknown>): Promise<DomainError> {
  try {
    await action();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a DomainError, but the action succeeded');
}

/** Asserts that `action` rejects with a DomainError of `code` and returns its details. */
export async function expectCode(action: () => Promise<unknown>, code: ErrorCode): Promise<DomainError['details']> {
  const error = await domainError(action);
  expect(error.code).toBe(code);
  return error.details;
}

/**
 * Text samples around a length rule: for each alphabet, the longest value that fits (`n`) is
 * bounded by whichever of the two limits binds first.
 */
export function limitSamples(limit: { maxChars: number; maxBytes: number }) {
  const alphabets = [
    { label: 'ASCII', unit: 'a', bytes: 1 },
    { label: 'CJK', unit: '字', bytes: 3 },
    { label: 'emoji', unit: '😀', bytes: 4 },
  ];
  return alphabets.flatMap(({ label, unit, bytes }) => {
    const n = Math.min(limit.maxChars, Math.floor(limit.maxBytes / bytes));
    return [
      { label: `${label} n-1`, value: unit.repeat(n - 1), ok: true },
      { label: `${label} n`, value: unit.repeat(n), ok: true },
      { label: `${label} n+1`, value: unit.repeat(n + 1), ok: false },
    ];
  });
}

/**
 * A READY team of alice's with a lead (Lead) and two teammates (Ann, Bob), each with an unfinished
 * job to call member tools through: `call(who, name, args)`, `who` the member's index.
 */
export async function toolTeam() {
  const h = harness();
  const { team, members } = await readyTeam(
    h,
    alice,
    teamInput({
      members: [
        { name: 'Lead', agentId: 'writer', lead: true },
        { name: 'Ann', agentId: 'writer' },
        { name: 'Bob', agentId: 'writer' },
      ],
    }),
  );
  const jobs = await Promise.all(members.map((m, i) => sendOne(h, team.id, m.id, 'work', `r${i}`)));
  const call = (who: number, name: string, args: Record<string, unknown> = {}) =>
    h.core.tools.invoke(jobs[who]?.id ?? ('' as never), name, args) as Promise<Record<string, unknown>>;
  return { h, team, members, call };
}
