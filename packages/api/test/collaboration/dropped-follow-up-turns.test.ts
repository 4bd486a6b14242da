// A follow-up's MESSAGE turn that ends before it starts (a person cancels it, the team closes, the
// member retires, or it fails while queued) must end cleanly: the turn queued in place of a
// dropped one reuses the follow-up's idempotency key, so queuing it for the same message again
// collided with the dropped turn's own key (UNIQUE_VIOLATION: the cancel failed as an unexpected
// error, and a failure inside an admission pass stopped admission for every team).
import { type Job, JobErrorCode, type JobId, JobKind, JobPhase, MessageDelivery, TeamStatus } from '@agent-teams/core';
import { StaticCatalog } from '@agent-teams/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Harness,
  OWNER,
  openHarness,
  TEST_AGENTS,
  waitFor,
  waitForPhases,
} from '../scheduler/scheduler-harness.js';
import { databaseTargets } from '../support/database-targets.js';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

const TARGETS = databaseTargets('agent_teams_dropped_follow_up');
let keys = 0;

/** A team whose member `busy` runs a long turn, so what is sent to it next stays QUEUED. */
async function busyTeam(harness: Harness, agents: readonly string[] = ['researcher', 'reviewer']) {
  const { team, members } = await harness.team(agents);
  const busy = members[1];
  if (!busy) throw new Error('two members expected');
  const [long] = await harness.send(team, [busy], '!sleep 600000');
  if (!long) throw new Error('no job');
  await waitForPhases(harness, [long.id], [JobPhase.RUNNING]);
  const followUp = (text: string) =>
    harness.core.messages.send(OWNER, {
      teamId: team.id,
      memberIds: [busy.id],
      text,
      delivery: MessageDelivery.FOLLOW_UP,
      clientRequestId: `follow-up-${++keys}`,
    });
  const queuedTurns = async (): Promise<Job[]> => {
    const page = await harness.core.jobs.list(team, { memberId: busy.id, first: 50 });
    return page.edges
      .map((edge) => edge.node as Job)
      .filter((job) => job.phase === JobPhase.QUEUED || job.phase === JobPhase.ADMITTING);
  };
  const messageTurns = async () =>
    (await harness.core.jobs.list(team, { kind: JobKind.MESSAGE, first: 50 })).edges.map((edge) => edge.node);
  return { team, busy, long, followUp, queuedTurns, messageTurns };
}

describe.each(TARGETS)('dropped follow-up turns (%s)', (_name, target) => {
  it('cancels a queued MESSAGE turn, and the turn queued in place of a cancelled one, queuing none again', async () => {
    h = await openHarness({ file: await target() });
    const { team, busy, followUp, queuedTurns, messageTurns } = await busyTeam(h);
    const first = await followUp('status please');
    const [turn] = await queuedTurns();
    expect(turn?.kind).toBe(JobKind.MESSAGE);
    await h.core.jobs.cancel(OWNER, turn?.id as string);
    expect((await h.job(turn?.id as JobId)).phase).toBe(JobPhase.CANCELLED);
    // Its own turn was cancelled: the follow-up waits in the mailbox for the member's next turn.
    expect(await queuedTurns()).toEqual([]);
    expect((await h.core.messages.mailbox(busy.id)).map((m) => m.id)).toEqual([first.id]);

    // A request queued behind the long turn; a follow-up joins it; cancelling the request queues
    // a MESSAGE turn in its place, and cancelling that one queues none again.
    const [request] = await h.send(team, [busy], 'Summarise the plan');
    const second = await followUp('and the risks');
    await h.core.jobs.cancel(OWNER, request?.id as string);
    const [inPlace] = await queuedTurns();
    expect(inPlace).toMatchObject({ kind: JobKind.MESSAGE, text: 'and the risks' });
    await h.core.jobs.cancel(OWNER, inPlace?.id as string);
    expect(await queuedTurns()).toEqual([]);
    expect((await messageTurns()).map((job) => job.phase)).toEqual([JobPhase.CANCELLED, JobPhase.CANCELLED]);
    expect((await h.core.messages.mailbox(busy.id)).map((m) => m.id)).toEqual([first.id, second.id]);
  });

  it.each([
    ['its own MESSAGE turn', false],
    ['a request it joined', true],
  ])('closes a team and retires a member whose follow-up waits in %s', async (_what, joined) => {
    h = await openHarness({ file: await target() });
    const harness = h;
    const queue = async (fixture: Awaited<ReturnType<typeof busyTeam>>) => {
      if (joined) await harness.send(fixture.team, [fixture.busy], 'Summarise the plan');
      await fixture.followUp('status please');
      expect((await fixture.queuedTurns()).map((job) => job.kind)).toEqual([
        joined ? JobKind.REQUEST : JobKind.MESSAGE,
      ]);
    };
    // Nothing queued for the member is left to run: a turn queued in place of a dropped one is
    // cancelled at admission, as whatever reaches a closed team or a retired member.
    const drained = (fixture: Awaited<ReturnType<typeof busyTeam>>) =>
      waitFor(async () => ((await fixture.queuedTurns()).length === 0 ? true : null), 'no queued turn');

    const closing = await busyTeam(harness);
    await queue(closing);
    const closed = await harness.core.lifecycle.close(OWNER, closing.team.id);
    expect(closed.status).toBe(TeamStatus.CLOSED);
    await drained(closing);

    const retiring = await busyTeam(harness);
    await queue(retiring);
    const retired = await harness.core.lifecycle.retire(OWNER, retiring.busy.id);
    expect(retired.retiredAt).not.toBeNull();
    await waitForPhases(harness, [retiring.long.id], [JobPhase.CANCELLED]);
    await drained(retiring);

    // The scheduler still admits other teams' work.
    const other = await busyTeam(harness);
    expect((await harness.job(other.long.id)).phase).toBe(JobPhase.RUNNING);
  });

  it('keeps admitting every team when a follow-up turn fails at admission (its agent removed)', async () => {
    const file = await target();
    const withTemp = new StaticCatalog([...TEST_AGENTS, { name: 'temp' }]);
    h = await openHarness({ file, catalog: withTemp });
    const fixture = await busyTeam(h, ['researcher', 'temp']);
    await fixture.followUp('status please');
    const [turn] = await fixture.queuedTurns();
    expect(turn?.kind).toBe(JobKind.MESSAGE);
    await h.close();
    // Restarted without the member's agent: its turns fail with AGENT_UNAVAILABLE.
    h = await openHarness({ file });
    const [failed] = await waitForPhases(h, [turn?.id as JobId], [JobPhase.FAILED]);
    expect(failed?.errorCode).toBe(JobErrorCode.AGENT_UNAVAILABLE);
    const other = await h.team(['researcher', 'reviewer']);
    const [request] = await h.send(other.team, other.members.slice(0, 1), 'Summarise the plan');
    await waitForPhases(h, [request?.id as JobId], [JobPhase.COMPLETED]);
    const left = await h.core.jobs.list(fixture.team, { memberId: fixture.busy.id, first: 50 });
    expect(left.edges.map((edge) => edge.node.phase).filter((phase) => phase === JobPhase.QUEUED)).toEqual([]);
  });
});
