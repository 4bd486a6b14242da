import {
  cancelStep,
  decideTask,
  type Member,
  releaseReason,
  type TaskActor,
  type TaskChange,
  type TaskCommand,
  TaskStatus,
  type Team,
  TeamEventKind,
} from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { ALICE, at, expectCode, type StoreHarness } from './store-harness.js';

/** A member's actor (the lead flag from the roster). */
const actor = (member: Member): TaskActor => ({ kind: 'member', memberId: member.id, isLead: member.isLead });
/** The team's owner (GraphQL), who creates with a `clientRequestId`. */
const PERSON: TaskActor = { kind: 'person' };

/** Runs one board command through the store, decided by the core. */
function write(h: StoreHarness, team: Team, command: TaskCommand, by: TaskActor): Promise<TaskChange> {
  const now = h.now();
  return h.store.changeTask({ teamId: team.id, now, decide: (board) => decideTask(board, command, by, now) });
}

function create(h: StoreHarness, team: Team, by: TaskActor, extra: Partial<TaskCommand> = {}): Promise<TaskChange> {
  const command = {
    type: 'create',
    id: h.ids.taskId(),
    clientRequestId: null,
    title: 'Write the parser',
    details: null,
    dependsOn: [],
    writeScope: [],
    assigneeId: null,
    ...extra,
  } as TaskCommand;
  return write(h, team, command, by);
}

const taskEvents = (h: StoreHarness) => h.publishedEvents.filter((e) => e.kind === TeamEventKind.TASK_CHANGED);

/** Contract cases of `Tasks`: atomic compare-and-set writes, one event per change, filtered pages, released claims. */
export function describeTasksCases(h: () => StoreHarness): void {
  describe('tasks', () => {
    it('creates a task at revision 1 with one TASK_CHANGED event and a team revision bump', async () => {
      const { team, members } = await h().team();
      const { task } = await create(h(), team, actor(at(members, 1)));
      expect(task).toMatchObject({ revision: 1, status: TaskStatus.OPEN, seq: 1, createdBy: at(members, 1).id });
      expect(await h().store.findTasks([task.id])).toEqual([task]);
      const events = await h().store.readEvents(team.id, team.lastEventSeq, 10);
      expect(events).toEqual([expect.objectContaining({ kind: TeamEventKind.TASK_CHANGED, taskId: task.id })]);
      expect(taskEvents(h())).toEqual(events);
      expect((await h().store.findTeam(ALICE, team.id))?.revision).toBe(team.revision + 1);
    });

    it('refuses a stale revision with the current one, writing nothing', async () => {
      const { team, members } = await h().team();
      const { task } = await create(h(), team, actor(at(members, 1)));
      const claim = { type: 'claim', taskId: task.id, expectedRevision: 1 } as const;
      await write(h(), team, claim, actor(at(members, 1)));
      const before = await h().store.readEvents(team.id, 0, 100);
      await expect(write(h(), team, claim, actor(at(members, 2)))).rejects.toMatchObject({
        code: 'TASK_STALE_REVISION',
        details: { currentRevision: 2 },
      });
      expect(await h().store.readEvents(team.id, 0, 100)).toEqual(before);
      expect(await h().store.findTasks([task.id])).toEqual([expect.objectContaining({ revision: 2 })]);
    });

    it('lets exactly one of many racing claims of one revision win', async () => {
      const { team, members } = await h().team({ size: 8 });
      const { task } = await create(h(), team, actor(at(members, 0)));
      const claims = await Promise.allSettled(
        members.map((m) => write(h(), team, { type: 'claim', taskId: task.id, expectedRevision: 1 }, actor(m))),
      );
      const won = claims.filter((c) => c.status === 'fulfilled');
      expect(won).toHaveLength(1);
      for (const lost of claims.filter((c) => c.status === 'rejected')) {
        expect(lost.reason).toMatchObject({ code: 'TASK_STALE_REVISION' });
      }
      const [stored] = await h().store.findTasks([task.id]);
      expect(stored).toMatchObject({ revision: 2, status: TaskStatus.CLAIMED });
      expect(taskEvents(h())).toHaveLength(2);
    });

    it('replays a keyed create after the task was edited and moved, and refuses another input', async () => {
      const { team, members } = await h().team();
      const request = {
        clientRequestId: 'retry-1',
        title: 'Write the parser',
        details: 'In Rust',
        writeScope: ['src'],
      };
      const { task } = await create(h(), team, PERSON, request);
      const edit = {
        type: 'update',
        taskId: task.id,
        expectedRevision: 1,
        title: 'Write the lexer',
        details: null,
      } as const;
      await write(h(), team, edit, PERSON);
      await write(h(), team, { type: 'claim', taskId: task.id, expectedRevision: 2 }, actor(at(members, 1)));
      const [current] = await h().store.findTasks([task.id]);
      const seq = (await h().store.findTeam(ALICE, team.id))?.lastEventSeq;
      // A retry after a lost answer: compared with the stored request, not with the edited task.
      const retry = await create(h(), team, PERSON, request);
      expect(retry).toMatchObject({ changed: false, task: current });
      expect(current).toMatchObject({ title: 'Write the lexer', status: TaskStatus.CLAIMED, revision: 3 });
      expect(current?.requestFingerprint).toBe(task.requestFingerprint);
      expect((await h().store.findTeam(ALICE, team.id))?.lastEventSeq).toBe(seq);
      for (const other of [{ details: 'In Go' }, { title: 'Write the lexer', details: null }]) {
        await expectCode(create(h(), team, PERSON, { ...request, ...other }), 'IDEMPOTENCY_CONFLICT');
      }
      const all = await h().store.listTasks(team.id, { status: null, ownerId: null }, { first: 9, afterSeq: null });
      expect(all.totalCount).toBe(1);
    });

    it('writes nothing for a decision that changes nothing', async () => {
      const { team, members } = await h().team();
      const { task } = await create(h(), team, actor(at(members, 1)));
      const seq = (await h().store.findTeam(ALICE, team.id))?.lastEventSeq;
      const change = await write(
        h(),
        team,
        { type: 'update', taskId: task.id, expectedRevision: 1 },
        actor(at(members, 1)),
      );
      expect(change.changed).toBe(false);
      expect((await h().store.findTeam(ALICE, team.id))?.lastEventSeq).toBe(seq);
    });

    it('lists in board order, filtered by status and owner, with the filtered total', async () => {
      const { team, members } = await h().team();
      const by = actor(at(members, 0));
      const tasks = [];
      for (let i = 0; i < 5; i += 1) tasks.push((await create(h(), team, by)).task);
      for (const t of [at(tasks, 1), at(tasks, 3)]) {
        await write(h(), team, { type: 'claim', taskId: t.id, expectedRevision: 1 }, actor(at(members, 2)));
      }
      const open = { status: TaskStatus.OPEN, ownerId: null };
      const first = await h().store.listTasks(team.id, open, { first: 2, afterSeq: null });
      expect(first.items.map((t) => t.id)).toEqual([at(tasks, 0).id, at(tasks, 2).id]);
      expect(first).toMatchObject({ hasNextPage: true, totalCount: 3 });
      const next = await h().store.listTasks(team.id, open, { first: 2, afterSeq: at(first.items, 1).seq });
      expect(next).toMatchObject({ items: [expect.objectContaining({ id: at(tasks, 4).id })], hasNextPage: false });
      const owned = await h().store.listTasks(
        team.id,
        { status: null, ownerId: at(members, 2).id },
        { first: 9, afterSeq: null },
      );
      expect(owned.items.map((t) => t.id)).toEqual([at(tasks, 1).id, at(tasks, 3).id]);
    });

    it('releases the claims of one member, or all, with an event that says why', async () => {
      const { team, members } = await h().team();
      const tasks = [];
      for (const m of [at(members, 1), at(members, 2), at(members, 1)]) {
        const { task } = await create(h(), team, actor(m));
        await write(h(), team, { type: 'claim', taskId: task.id, expectedRevision: 1 }, actor(m));
        tasks.push(task);
      }
      const seq = (await h().store.findTeam(ALICE, team.id))?.lastEventSeq ?? 0;
      const released = await h().store.releaseClaims(team.id, at(members, 1).id, 'M1 was retired', h().now());
      expect(released.map((t) => [t.id, t.status, t.ownerId, t.revision])).toEqual([
        [at(tasks, 0).id, 'OPEN', null, 3],
        [at(tasks, 2).id, 'OPEN', null, 3],
      ]);
      const events = await h().store.readEvents(team.id, seq, 10);
      expect(events.map((e) => [e.taskId, e.reason])).toEqual([
        [at(tasks, 0).id, 'M1 was retired'],
        [at(tasks, 2).id, 'M1 was retired'],
      ]);
      expect(await h().store.releaseClaims(team.id, at(members, 1).id, 'again', h().now())).toEqual([]);
      const all = await h().store.releaseClaims(team.id, null, 'team closed', h().now());
      expect(all.map((t) => t.id)).toEqual([at(tasks, 1).id]);
      expect(await h().store.findTasks([at(tasks, 1).id])).toEqual([expect.objectContaining({ status: 'OPEN' })]);
    });

    it('gives back a retired member’s claims, then every claim when the team closes, in those writes', async () => {
      const { team, members } = await h().team();
      const [lead, m1, m2] = [at(members, 0), at(members, 1), at(members, 2)];
      const tasks = [];
      for (const m of [m1, m2]) {
        const { task } = await create(h(), team, actor(m));
        await write(h(), team, { type: 'claim', taskId: task.id, expectedRevision: 1 }, actor(m));
        tasks.push(task);
      }
      const seq = (await h().store.findTeam(ALICE, team.id))?.lastEventSeq ?? 0;
      const now = h().now();
      const cancel = cancelStep({ now, ids: h().ids });
      await h().store.retireMember({ owner: team.owner, teamId: team.id, memberId: m1.id, now, cancel });
      const afterRetire = await h().store.readEvents(team.id, seq, 20);
      expect(afterRetire.filter((e) => e.kind === TeamEventKind.TASK_CHANGED).map((e) => [e.taskId, e.reason])).toEqual(
        [[at(tasks, 0).id, releaseReason.retired(m1.name)]],
      );
      expect(await h().store.findTasks([at(tasks, 0).id])).toEqual([
        expect.objectContaining({ status: 'OPEN', ownerId: null, revision: 3 }),
      ]);
      expect(await h().store.findTasks([at(tasks, 1).id])).toEqual([
        expect.objectContaining({ status: 'CLAIMED', ownerId: m2.id, revision: 2 }),
      ]);
      const seq2 = (await h().store.findTeam(ALICE, team.id))?.lastEventSeq ?? 0;
      await h().store.closeTeam({ owner: team.owner, teamId: team.id, now: h().now(), cancel });
      const afterClose = await h().store.readEvents(team.id, seq2, 20);
      expect(afterClose.filter((e) => e.kind === TeamEventKind.TASK_CHANGED).map((e) => [e.taskId, e.reason])).toEqual([
        [at(tasks, 1).id, releaseReason.closed],
      ]);
      expect(await h().store.findTasks([at(tasks, 1).id])).toEqual([
        expect.objectContaining({ status: 'OPEN', ownerId: null }),
      ]);
      expect(lead.id).not.toBe(m1.id);
    });

    it('answers NOT_FOUND for an absent team and drops the board with its team', async () => {
      const { team, members } = await h().team();
      const { task } = await create(h(), team, actor(at(members, 1)));
      await h().store.deleteTeam(ALICE, team.id, h().now());
      expect(await h().store.findTasks([task.id])).toEqual([]);
      await expectCode(create(h(), team, actor(at(members, 1))), 'NOT_FOUND');
    });
  });
}
