import {
  asAgentId,
  asOwnerId,
  type ConversationId,
  type EventSink,
  type FreezeContext,
  type IdGenerator,
  type Job,
  JobPhase,
  type Member,
  type MemberId,
  type OwnerId,
  RecordKind,
  type Team,
  type TeamEvent,
  TeamStatus,
  type TeamStore,
  type TransitionOutcome,
  toTimestamp,
  transition,
  WAKE_KIND,
  wakeResult,
} from '@agent-teams/core';
import { afterEach, beforeEach, expect } from 'vitest';
import { SequentialIds } from '../fakes/sequential-ids.js';
import { type JobZoo, makeJobZoo } from '../zoo.js';

/** What the contract suite hands an adapter when it opens a fresh, empty store. */
export interface StoreContractOptions {
  /** Must receive the store's committed events. */
  readonly events: EventSink;
  /** The test's id generator; stores that mint record ids should use it. */
  readonly ids: IdGenerator;
}

/** An opened store under test. */
export interface OpenedContractStore {
  readonly store: TeamStore;
  close(): Promise<void>;
}

/** Opens a fresh, empty, migrated store for one test. */
export type OpenContractStore = (options: StoreContractOptions) => Promise<OpenedContractStore>;

/** The owners the suite uses. */
export const ALICE: OwnerId = asOwnerId('alice');
export const BOB: OwnerId = asOwnerId('bob');

/** One test's store, ids, recorded publications and a clock that moves one second per read. */
export class StoreHarness {
  #ms = Date.parse('2026-01-01T00:00:00.000Z');
  /** Called inside the store's `published`, after the batch is recorded. */
  onPublish: ((events: readonly TeamEvent[]) => void) | null = null;

  constructor(
    readonly store: TeamStore,
    readonly ids: SequentialIds,
    /** Every `published` call the store made, in order. */
    readonly published: TeamEvent[][],
  ) {}

  /** A fresh timestamp, strictly later than the previous one. */
  now(): string {
    this.#ms += 1_000;
    return toTimestamp(this.#ms);
  }

  /** Every published event, flattened. */
  get publishedEvents(): TeamEvent[] {
    return this.published.flat();
  }

  /** A decide that fails a job and, like the core, appends its record and (optionally) a receipt. */
  failWith(receipt: { to: { id: Job['memberId']; conversationId: Job['conversationId'] } } | null) {
    return (job: Job): TransitionOutcome => ({
      ok: true,
      job: {
        ...job,
        phase: JobPhase.FAILED,
        error: 'boom',
        result: { text: 'boom', truncated: false },
        finishedAt: this.now(),
      },
      effects: [
        {
          type: 'APPEND_RECORD',
          kind: RecordKind.FAILED,
          memberId: job.memberId,
          fromMemberId: job.memberId,
          text: 'boom',
          truncated: false,
        },
        ...(receipt === null
          ? []
          : [
              {
                type: 'CREATE_RECEIPT' as const,
                receipt: {
                  id: this.ids.jobId(),
                  memberId: receipt.to.id,
                  conversationId: receipt.to.conversationId,
                  text: '{"status":"FAILED"}',
                },
              },
            ]),
      ],
    });
  }

  /** The `freeze` of admission as the core decides it: RESUME an answered job, FREEZE a queued one. */
  freeze(ctx: FreezeContext, now: string): TransitionOutcome {
    const tctx = { now, ids: this.ids };
    if (ctx.job.phase === JobPhase.ANSWERED) return transition(ctx.job, { type: 'RESUME' }, tctx);
    if (ctx.job.phase === JobPhase.WAITING_CHANGE) {
      const requestId = ctx.job.wait?.requestId ?? '';
      const value = wakeResult(ctx.changes ?? [], ctx.team.lastEventSeq);
      const response = {
        runKey: `${ctx.job.id}:wake`,
        inputRequestId: requestId,
        kind: WAKE_KIND,
        value,
        clientRequestId: requestId,
      };
      return transition(ctx.job, { type: 'WAKE', response }, tctx);
    }
    const input = {
      kind: 'request' as const,
      jobId: ctx.job.id,
      teamId: ctx.team.id,
      text: ctx.job.text,
      memberName: 'm',
      requesterName: null,
      receipt: null,
      context: {},
    };
    return transition(ctx.job, { type: 'FREEZE', input, runKey: ctx.job.id }, tctx);
  }

  /** A READY team of alice's with one job in every phase (see `makeJobZoo`). */
  zoo(): Promise<JobZoo> {
    return makeJobZoo(this.store, { ids: this.ids, now: this.now(), owner: ALICE });
  }

  /** Creates a team of `size` members, READY unless told otherwise. */
  async team(
    opts: { owner?: OwnerId; size?: number; status?: TeamStatus; clientRequestId?: string } = {},
  ): Promise<{ team: Team; members: Member[] }> {
    const owner = opts.owner ?? ALICE;
    const id = this.ids.teamId();
    const members = Array.from({ length: opts.size ?? 3 }, (_, index) => ({
      id: this.ids.memberId(),
      name: `Member ${index}`,
      agentId: asAgentId('researcher'),
      conversationId: this.ids.conversationId(),
    }));
    const created = await this.store.createTeam(
      {
        id,
        owner,
        clientRequestId: opts.clientRequestId ?? `create-${id}`,
        fingerprint: 'f',
        name: 'Team',
        goal: 'Goal',
        members,
      },
      { now: this.now(), maxTeams: 20 },
    );
    const status = opts.status ?? TeamStatus.READY;
    const team = status === TeamStatus.CREATING ? created.team : await this.store.setTeamStatus(id, status, this.now());
    return { team, members: [...(await this.store.listMembers([id]))] };
  }

  /**
   * Sends `text` to each target, reusing an existing job for a repeated key (the core's
   * idempotency rule, reduced to what the store needs).
   */
  async send(
    team: Team,
    targets: readonly Member[],
    opts: { clientKey?: string; text?: string; from?: Member; owner?: OwnerId } = {},
  ): Promise<Job[]> {
    const clientKey = opts.clientKey ?? `send-${this.ids.count('job') + 1}`;
    const requester = { memberId: opts.from?.id ?? null, conversationId: opts.from?.conversationId ?? null };
    const keys = targets.map((m) => ({ requesterConversationId: requester.conversationId, clientKey, memberId: m.id }));
    const fresh = targets.map(() => this.ids.jobId());
    const jobs = await this.store.enqueueRequests({
      owner: opts.owner ?? team.owner,
      teamId: team.id,
      keys,
      roots: fresh,
      now: this.now(),
      decide: (snapshot) => {
        const reuse = (memberId: MemberId) => snapshot.existing.find((job) => job.memberId === memberId);
        const insert = targets.flatMap((m, index) =>
          reuse(m.id)
            ? []
            : [
                {
                  id: fresh[index] as Job['id'],
                  recordId: this.ids.recordId(),
                  memberId: m.id,
                  conversationId: m.conversationId as ConversationId,
                  requester,
                  parentId: null,
                  rootId: fresh[index] as Job['id'],
                  clientKey,
                  text: opts.text ?? `Task for ${m.name}`,
                },
              ],
        );
        return { insert, resultIds: targets.map((m, index) => reuse(m.id)?.id ?? (fresh[index] as Job['id'])) };
      },
    });
    return [...jobs];
  }
}

/**
 * Registers beforeEach/afterEach hooks that open a fresh store per test and close it after.
 * @returns an accessor for the current test's harness.
 */
export function useStoreHarness(open: OpenContractStore): () => StoreHarness {
  let harness: StoreHarness | null = null;
  let opened: OpenedContractStore | null = null;
  beforeEach(async () => {
    const ids = new SequentialIds();
    const published: TeamEvent[][] = [];
    const events: EventSink = {
      published: (batch) => {
        published.push([...batch]);
        harness?.onPublish?.(batch);
      },
    };
    opened = await open({ events, ids });
    harness = new StoreHarness(opened.store, ids, published);
  });
  afterEach(async () => {
    await opened?.close();
    opened = null;
    harness = null;
  });
  return () => {
    if (harness === null) throw new Error('[agent-teams/testkit] the store harness is used outside a test');
    return harness;
  };
}

/** Asserts that a promise rejects with a DomainError of the given code. */
export async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  await expect(promise).rejects.toMatchObject({ name: 'DomainError', code });
}

/** The item at `index`, failing the test when it is missing (keeps fixtures free of `!`). */
export function at<T>(items: readonly T[], index: number): T {
  const item = items[index];
  if (item === undefined) throw new Error(`[agent-teams/testkit] expected an item at index ${index}`);
  return item;
}
