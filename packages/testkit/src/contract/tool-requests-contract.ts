import {
  cancelStep,
  decideKeyedTask,
  ErrorCode,
  JobPhase,
  type Member,
  type TaskActor,
  type TaskChange,
  type TaskCommand,
  TaskStatus,
  type Team,
  type ToolRequest,
} from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { ALICE, at, BOB, expectCode, type StoreHarness } from './store-harness.js';

/** A member's actor (the lead flag from the roster). */
const actor = (member: Member): TaskActor => ({ kind: 'member', memberId: member.id, isLead: member.isLead });

/** A member tool call's key, as the core makes it (`toolRequestOf`). */
const keyed = (member: Member, requestId: string, fingerprint = `f-${requestId}`): ToolRequest => ({
  key: `tool:${member.id}:${requestId}`,
  fingerprint,
});

/** Runs one board command through the store, decided by the core, under `request` (null: none). */
function write(
  h: StoreHarness,
  team: Team,
  command: TaskCommand,
  by: Member,
  request: ToolRequest | null,
): Promise<TaskChange> {
  const now = h.now();
  return h.store.changeTask({
    teamId: team.id,
    now,
    request,
    decide: (board) => decideKeyedTask(board, command, actor(by), now, request),
  });
}

async function newTask(h: StoreHarness, team: Team, by: Member) {
  const command = {
    type: 'create',
    id: h.ids.taskId(),
    clientRequestId: null,
    title: 'Write the parser',
    details: null,
    dependsOn: [],
    writeScope: ['src'],
    assigneeId: null,
  } as const;
  return (await write(h, team, command, by, null)).task;
}

const lastSeq = async (h: StoreHarness, team: Team) => (await h.store.findTeam(ALICE, team.id))?.lastEventSeq;

/**
 * Contract cases of the keys of member tool calls on the board (`ChangeTaskArgs.request`): a write
 * run again under its key after it succeeded answers the task, though the revision moved on.
 */
export function describeKeyedTaskWriteCases(h: () => StoreHarness): void {
  describe('keyed task writes', () => {
    it('answers a keyed write run again with the task as it is now, writing nothing, where its revision is stale', async () => {
      const { team, members } = await h().team();
      const [m1, m2] = [at(members, 1), at(members, 2)];
      const task = await newTask(h(), team, m1);
      const claim = { type: 'claim', taskId: task.id, expectedRevision: 1 } as const;
      const first = await write(h(), team, claim, m1, keyed(m1, 'claim-1'));
      expect(first).toMatchObject({ changed: true, task: { revision: 2, status: TaskStatus.CLAIMED } });
      const complete = { type: 'complete', taskId: task.id, expectedRevision: 2, result: 'Done' } as const;
      await write(h(), team, complete, m1, keyed(m1, 'complete-1'));
      const [current] = await h().store.findTasks([task.id]);
      const seq = await lastSeq(h(), team);
      // Both run again, as after a crash before their answers were stored: the task as it is now.
      for (const [command, requestId] of [
        [claim, 'claim-1'],
        [complete, 'complete-1'],
      ] as const) {
        const again = await write(h(), team, command, m1, keyed(m1, requestId));
        expect(again).toMatchObject({ changed: false, task: current });
      }
      expect(current).toMatchObject({ revision: 3, status: TaskStatus.DONE, ownerId: m1.id });
      expect(await lastSeq(h(), team)).toBe(seq);
      // The same key for another call is a conflict; without a key, or under another member's
      // key, the stale revision is refused as always.
      await expectCode(write(h(), team, claim, m1, keyed(m1, 'claim-1', 'other')), ErrorCode.IDEMPOTENCY_CONFLICT);
      await expectCode(write(h(), team, claim, m1, null), ErrorCode.TASK_STALE_REVISION);
      await expectCode(write(h(), team, claim, m2, keyed(m2, 'claim-1')), ErrorCode.TASK_STALE_REVISION);
      expect(await h().store.findTasks([task.id])).toEqual([current]);
    });

    it('records the key of a write that changed nothing, and none of a refused write', async () => {
      const { team, members } = await h().team();
      const [m1, m2] = [at(members, 1), at(members, 2)];
      const task = await newTask(h(), team, m1);
      const same = { type: 'update', taskId: task.id, expectedRevision: 1, title: task.title } as const;
      expect(await write(h(), team, same, m1, keyed(m1, 'same'))).toMatchObject({ changed: false });
      await write(h(), team, { type: 'claim', taskId: task.id, expectedRevision: 1 }, m2, null);
      // Answered again, though the task moved on: the first call succeeded.
      const again = await write(h(), team, same, m1, keyed(m1, 'same'));
      expect(again).toMatchObject({ changed: false, task: { revision: 2, ownerId: m2.id } });
      expect(again.warnings).toEqual([]);
      // A refused write recorded nothing: its key then serves the call that succeeds.
      const release = { type: 'release', taskId: task.id, expectedRevision: 2 } as const;
      await expectCode(write(h(), team, release, m1, keyed(m1, 'release')), ErrorCode.FORBIDDEN);
      const claim = { type: 'claim', taskId: task.id, expectedRevision: 1 } as const;
      await expectCode(write(h(), team, claim, m1, keyed(m1, 'release', 'other')), ErrorCode.TASK_STALE_REVISION);
      const done = { type: 'complete', taskId: task.id, expectedRevision: 2, result: null } as const;
      expect(await write(h(), team, done, m2, keyed(m2, 'release'))).toMatchObject({ task: { revision: 3 } });
    });
  });
}

/**
 * Contract cases of `TeamLifecycle.interruptTurn`: the cancel and its key in one write; a key run
 * again answers its first job and ends no later turn.
 */
export function describeInterruptTurnCases(h: () => StoreHarness): void {
  describe('interrupting a turn', () => {
    const interrupt = (team: Team, jobId: string | null, request: ToolRequest | null) => {
      const now = h().now();
      return h().store.interruptTurn({
        owner: team.owner,
        teamId: team.id,
        jobId: jobId as never,
        request,
        now,
        cancel: cancelStep({ now, ids: h().ids }, 'Stop', 'lead'),
      });
    };
    const phaseOf = async (id: string) => (await h().store.findJobs([id as never]))[0]?.phase;

    it('cancels the turn and, run again under its key, answers that job and leaves a later turn running', async () => {
      const zoo = await h().zoo();
      const lead = at(zoo.members, 0);
      const [first, later] = [zoo.jobs.RUNNING, zoo.jobs.RESUMING];
      const request = keyed(lead, 'interrupt-1');
      const done = await interrupt(zoo.team, first.id, request);
      expect(done).toMatchObject({ replayed: false, job: { id: first.id, phase: JobPhase.CANCELLING } });
      const seq = await lastSeq(h(), zoo.team);
      const again = await interrupt(zoo.team, later.id, request);
      expect(again).toMatchObject({ replayed: true, job: { id: first.id, phase: JobPhase.CANCELLING } });
      expect(await phaseOf(later.id)).toBe(JobPhase.RESUMING);
      expect(await lastSeq(h(), zoo.team)).toBe(seq);
      await expectCode(
        interrupt(zoo.team, later.id, keyed(lead, 'interrupt-1', 'other')),
        ErrorCode.IDEMPOTENCY_CONFLICT,
      );
      // Without a key, every call acts.
      expect(await interrupt(zoo.team, later.id, null)).toMatchObject({ replayed: false, job: { id: later.id } });
      expect(await phaseOf(later.id)).toBe(JobPhase.CANCELLING);
    });

    it('records that the member had no turn, so the call run again ends none', async () => {
      const zoo = await h().zoo();
      const request = keyed(at(zoo.members, 0), 'idle');
      expect(await interrupt(zoo.team, null, request)).toEqual({ job: null, replayed: false });
      expect(await interrupt(zoo.team, zoo.jobs.RUNNING.id, request)).toEqual({ job: null, replayed: true });
      expect(await phaseOf(zoo.jobs.RUNNING.id)).toBe(JobPhase.RUNNING);
      expect(await interrupt(zoo.team, null, null)).toEqual({ job: null, replayed: false });
    });

    it('refuses another owner and another team’s job (NOT_FOUND), recording nothing', async () => {
      const zoo = await h().zoo();
      const { team: other } = await h().team({ size: 2 });
      const request = keyed(at(zoo.members, 0), 'refused');
      await expectCode(interrupt({ ...zoo.team, owner: BOB }, zoo.jobs.RUNNING.id, request), ErrorCode.NOT_FOUND);
      await expectCode(interrupt(other, zoo.jobs.RUNNING.id, request), ErrorCode.NOT_FOUND);
      expect(await phaseOf(zoo.jobs.RUNNING.id)).toBe(JobPhase.RUNNING);
      const done = await interrupt(zoo.team, zoo.jobs.RUNNING.id, request);
      expect(done).toMatchObject({ replayed: false, job: { phase: JobPhase.CANCELLING } });
    });
  });
}
