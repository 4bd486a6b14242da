// The paging walk and the cursor tests run over the same stores and teams, so each store is opened,
// and each team built, one way for both.
import {
  asAgentId,
  asOwnerId,
  asRunId,
  type Core,
  type Job,
  type Member,
  type TeamStore,
  type TransitionOutcome,
  type TurnInput,
  transition,
} from '@agent-teams/core';
import { createMemoryTeamStore, FakeClock, SequentialIds, StaticCatalog } from '@agent-teams/testkit';
import { type App, createApp } from '../../src/app/create-app.js';

const FAKE_INPUT = (job: Job): TurnInput => ({
  kind: 'request',
  jobId: job.id,
  teamId: job.teamId,
  text: job.text,
  memberName: 'm',
  requesterName: null,
  receipt: null,
  context: null,
});

/** A store under test inside the application (no scheduler, no runtimes), with its ids and clock. */
export interface Opened {
  readonly app: App;
  readonly store: TeamStore;
  readonly ids: SequentialIds;
  readonly clock: FakeClock;
  close(): Promise<void>;
}

/** Builds the application over the SQL store (`database`) or the in-memory one (`database: null`). */
async function openStore(database: ':memory:' | null): Promise<Opened> {
  const ids = new SequentialIds();
  const clock = new FakeClock();
  const app = await createApp({
    database,
    ...(database === null ? { store: () => createMemoryTeamStore({ ids }) } : {}),
    runtimes: () => [],
    catalog: new StaticCatalog(),
    clock,
    ids,
    scheduler: false,
  });
  return { app, store: app.store, ids, clock, close: () => app.close() };
}

/** A team of two members in the store under test, and how to send and complete its jobs. */
export async function setup(opened: Opened, run: number) {
  const { store, ids, clock } = opened;
  const core: Core = opened.app.core;
  const owner = asOwnerId(`owner-${run}`);
  const members = [0, 1].map((i) => ({
    id: ids.memberId(),
    name: `M${i}`,
    agentId: asAgentId('researcher'),
    conversationId: ids.conversationId(),
  }));
  const { team } = await store.createTeam(
    { id: ids.teamId(), owner, clientRequestId: `c${run}`, fingerprint: 'f', name: 'T', goal: 'G', members },
    { now: new Date(clock.nowMs()).toISOString(), maxTeams: 20 },
  );
  let n = 0;
  const send = async (body: string, member: Member): Promise<Job> => {
    clock.advance(1);
    n += 1;
    const [job] = await core.requests.send(owner, {
      teamId: team.id,
      memberIds: [member.id],
      text: body,
      clientRequestId: `k${n}`,
    });
    return job as Job;
  };
  const complete = async (job: Job, answer: string) => {
    clock.advance(1);
    const now = new Date(clock.nowMs()).toISOString();
    const ctx = { now, ids };
    await store.updateJob(
      job.id,
      (current) => {
        const frozen = transition(current, { type: 'FREEZE', input: FAKE_INPUT(current), runKey: current.id }, ctx);
        if (!frozen.ok) return frozen;
        const acked = transition(frozen.job, { type: 'ACKNOWLEDGE', runId: asRunId(`run_${current.id}`) }, ctx);
        if (!acked.ok) return acked;
        const done = transition(acked.job, { type: 'COMPLETE', answer }, ctx);
        return done.ok ? ({ ...done, effects: done.effects } satisfies TransitionOutcome) : done;
      },
      { now },
    );
  };
  return { core, team, members: (await store.listMembers([team.id])) as Member[], send, complete };
}

/** One page of a member read tool as the tests read it: the listed items sit under a tool-specific key. */
export type Page = { next_cursor: string | null; cursor_expired: boolean } & Record<string, unknown>;

/** Every store the paging tests run against, named for `describe.each`. */
export const STORES: readonly [string, () => Promise<Opened>][] = [
  ['memory', () => openStore(null)],
  ['sqlite', () => openStore(':memory:')],
];
