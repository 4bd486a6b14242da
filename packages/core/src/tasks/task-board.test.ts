import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../errors/codes.js';
import { refusal } from '../jobs/make-test-job.js';
import { Limits } from '../limits/limits.js';
import { TeamStatus } from '../model/team.js';
import { TaskStatus } from './task.js';
import { as, mid, PERSON, rosterMember, TestBoard } from './task-fixtures.js';
import { MAX_SCOPE_WARNINGS } from './task-graph.js';
import { releasedClaims } from './task-writes.js';

describe('task board: revisions', () => {
  it('starts at revision 1 and adds 1 on every change', () => {
    const b = new TestBoard();
    const task = b.create();
    expect(task).toMatchObject({ revision: 1, status: TaskStatus.OPEN, ownerId: null, createdBy: mid(1), seq: 1 });
    const claimed = b.run({ type: 'claim', taskId: task.id, expectedRevision: 1 }, as(2)).task;
    expect(claimed).toMatchObject({ revision: 2, status: TaskStatus.CLAIMED, ownerId: mid(2) });
    const done = b.run({ type: 'complete', taskId: task.id, expectedRevision: 2, result: 'ok' }, as(2)).task;
    expect(done).toMatchObject({ revision: 3, status: TaskStatus.DONE, result: 'ok' });
  });

  it('refuses a stale revision with the current one and changes nothing', () => {
    const b = new TestBoard();
    const task = b.create();
    b.run({ type: 'update', taskId: task.id, expectedRevision: 1, title: 'New' });
    const before = b.tasks.map((t) => ({ ...t }));
    for (const stale of [1, 3]) {
      const error = refusal(() => b.run({ type: 'claim', taskId: task.id, expectedRevision: stale }, as(2)));
      expect(error).toMatchObject({ code: ErrorCode.TASK_STALE_REVISION, details: { currentRevision: 2 } });
    }
    expect(b.tasks).toEqual(before);
  });

  it('does not bump the revision of a write that changes nothing', () => {
    const b = new TestBoard();
    const task = b.create({ title: 'Same' });
    const change = b.run({ type: 'update', taskId: task.id, expectedRevision: 1, title: 'Same' });
    expect(change).toMatchObject({ changed: false, task: { revision: 1 } });
  });
});

describe('task board: claims', () => {
  it('needs every dependency done and names the open ones', () => {
    const b = new TestBoard();
    const a = b.create();
    const c = b.create();
    const t = b.create({ dependsOn: [a.id, c.id] });
    b.run({ type: 'claim', taskId: a.id, expectedRevision: 1 }, as(1));
    b.run({ type: 'complete', taskId: a.id, expectedRevision: 2, result: null }, as(1));
    const error = refusal(() => b.run({ type: 'claim', taskId: t.id, expectedRevision: 1 }, as(2)));
    expect(error).toMatchObject({ code: ErrorCode.TASK_BLOCKED, details: { blockedBy: c.id } });
    b.run({ type: 'cancel', taskId: c.id, expectedRevision: 1 }, as(1));
    expect(refusal(() => b.run({ type: 'claim', taskId: t.id, expectedRevision: 1 }, as(2))).code).toBe(
      ErrorCode.TASK_BLOCKED,
    );
  });

  it('refuses a task another member owns, and a second claim by the owner changes nothing', () => {
    const b = new TestBoard();
    const t = b.create();
    b.run({ type: 'claim', taskId: t.id, expectedRevision: 1 }, as(1));
    const error = refusal(() => b.run({ type: 'claim', taskId: t.id, expectedRevision: 2 }, as(2)));
    expect(error).toMatchObject({ code: ErrorCode.TASK_CLAIMED, details: { owner: 'M1' } });
    expect(b.run({ type: 'claim', taskId: t.id, expectedRevision: 2 }, as(1)).changed).toBe(false);
  });

  it('releases back to open; only the owner or the lead may release or complete', () => {
    const b = new TestBoard();
    const t = b.create();
    b.run({ type: 'claim', taskId: t.id, expectedRevision: 1 }, as(1));
    expect(refusal(() => b.run({ type: 'release', taskId: t.id, expectedRevision: 2 }, as(2))).code).toBe(
      ErrorCode.FORBIDDEN,
    );
    const open = b.run({ type: 'release', taskId: t.id, expectedRevision: 2 }, as(0)).task;
    expect(open).toMatchObject({ status: TaskStatus.OPEN, ownerId: null, revision: 3 });
    expect(refusal(() => b.run({ type: 'release', taskId: t.id, expectedRevision: 3 }, as(0))).code).toBe(
      ErrorCode.INVALID_TRANSITION,
    );
  });

  it('lets only the lead or a person assign, and never to a retired member', () => {
    const b = new TestBoard([rosterMember(0, { lead: true }), rosterMember(1), rosterMember(2, { retired: true })]);
    const t = b.create();
    const assign = (memberId: ReturnType<typeof mid> | null, rev: number) =>
      ({ type: 'assign', taskId: t.id, expectedRevision: rev, memberId }) as const;
    expect(refusal(() => b.run(assign(mid(1), 1), as(1))).code).toBe(ErrorCode.NOT_LEAD);
    expect(refusal(() => b.run(assign(mid(2), 1), PERSON)).code).toBe(ErrorCode.MEMBER_RETIRED);
    expect(b.run(assign(mid(1), 1), PERSON).task).toMatchObject({ ownerId: mid(1), revision: 2 });
    expect(b.run(assign(mid(0), 2), as(0)).task).toMatchObject({ ownerId: mid(0), revision: 3 });
    expect(b.run(assign(null, 3), PERSON).task).toMatchObject({ ownerId: null, status: TaskStatus.OPEN });
    expect(refusal(() => b.create({ assigneeId: mid(1) }, as(1))).code).toBe(ErrorCode.NOT_LEAD);
    expect(b.create({ assigneeId: mid(1) }, as(0))).toMatchObject({ status: TaskStatus.CLAIMED, ownerId: mid(1) });
  });

  it('lets the creator, the owner or the lead update, and the creator or lead cancel', () => {
    const b = new TestBoard();
    const t = b.create({}, as(1));
    expect(refusal(() => b.run({ type: 'update', taskId: t.id, expectedRevision: 1, title: 'x' }, as(2))).code).toBe(
      ErrorCode.FORBIDDEN,
    );
    b.run({ type: 'claim', taskId: t.id, expectedRevision: 1 }, as(2));
    b.run({ type: 'update', taskId: t.id, expectedRevision: 2, details: 'by owner' }, as(2));
    expect(refusal(() => b.run({ type: 'cancel', taskId: t.id, expectedRevision: 3 }, as(2))).code).toBe(
      ErrorCode.FORBIDDEN,
    );
    const cancelled = b.run({ type: 'cancel', taskId: t.id, expectedRevision: 3 }, as(1)).task;
    expect(cancelled).toMatchObject({ status: TaskStatus.CANCELLED, revision: 4, details: 'by owner' });
    expect(refusal(() => b.run({ type: 'update', taskId: t.id, expectedRevision: 4, title: 'y' }, as(0))).code).toBe(
      ErrorCode.INVALID_TRANSITION,
    );
    expect(refusal(() => b.run({ type: 'claim', taskId: t.id, expectedRevision: 4 }, PERSON)).code).toBe(
      ErrorCode.FORBIDDEN,
    );
  });

  it('gives back the claims of a retired member, or every claim when the team closes', () => {
    const b = new TestBoard();
    const [x, y, z] = [b.create(), b.create(), b.create()];
    b.run({ type: 'claim', taskId: x.id, expectedRevision: 1 }, as(1));
    b.run({ type: 'claim', taskId: y.id, expectedRevision: 1 }, as(2));
    b.run({ type: 'claim', taskId: z.id, expectedRevision: 1 }, as(1));
    b.run({ type: 'complete', taskId: z.id, expectedRevision: 2, result: null }, as(1));
    const released = releasedClaims(b.tasks, mid(1), 'later');
    expect(released).toEqual([expect.objectContaining({ id: x.id, status: 'OPEN', ownerId: null, revision: 3 })]);
    expect(releasedClaims(b.tasks, null, 'later').map((t) => t.id)).toEqual([x.id, y.id]);
  });
});

describe('task board: graph, scopes, limits', () => {
  it('refuses cycles, self-dependencies and unknown tasks', () => {
    const b = new TestBoard();
    const a = b.create();
    const c = b.create({ dependsOn: [a.id] });
    const d = b.create({ dependsOn: [c.id] });
    const cycle = refusal(() => b.run({ type: 'update', taskId: a.id, expectedRevision: 1, dependsOn: [d.id] }));
    expect(cycle).toMatchObject({ code: ErrorCode.TASK_CYCLE, details: { cycle: `${a.id},${d.id},${c.id},${a.id}` } });
    const self = refusal(() => b.run({ type: 'update', taskId: a.id, expectedRevision: 1, dependsOn: [a.id] }));
    expect(self.code).toBe(ErrorCode.TASK_CYCLE);
    expect(refusal(() => b.create({ dependsOn: ['task_99' as typeof a.id] })).code).toBe(ErrorCode.INVALID_INPUT);
    expect(b.tasks.find((t) => t.id === a.id)?.dependsOn).toEqual([]);
  });

  it('accepts overlapping write scopes of unfinished tasks with a warning naming the other task', () => {
    const b = new TestBoard();
    const a = b.create({ writeScope: ['src/api', 'docs'] });
    const change = b.run({
      type: 'create',
      id: 'task_x' as typeof a.id,
      clientRequestId: null,
      title: 'x',
      details: null,
      dependsOn: [],
      writeScope: ['src/api/server.ts', 'srcx', 'docs/'],
      assigneeId: null,
    });
    expect(change.warnings).toEqual([
      { kind: 'write_scope_overlap', taskId: a.id, scope: 'src/api' },
      { kind: 'write_scope_overlap', taskId: a.id, scope: 'docs' },
    ]);
    b.run({ type: 'cancel', taskId: a.id, expectedRevision: 1 });
    expect(b.run({ type: 'update', taskId: 'task_x' as typeof a.id, expectedRevision: 1 }).warnings).toEqual([]);
    const later = b.create({ writeScope: ['src'] });
    expect(b.run({ type: 'update', taskId: 'task_x' as typeof a.id, expectedRevision: 1 }).warnings).toEqual([
      { kind: 'write_scope_overlap', taskId: later.id, scope: 'src' },
    ]);
  });

  it(`holds ${Limits.tasksPerTeam} tasks per team, cancelled ones included`, () => {
    const b = new TestBoard();
    for (let i = 0; i < Limits.tasksPerTeam - 1; i += 1) b.create();
    b.run({ type: 'cancel', taskId: b.tasks[0]?.id ?? ('' as never), expectedRevision: 1 });
    expect(b.create().seq).toBe(Limits.tasksPerTeam);
    expect(refusal(() => b.create()).code).toBe(ErrorCode.TASK_LIMIT);
  });

  it('replays a create with the same clientRequestId and refuses other content', () => {
    const b = new TestBoard();
    const t = b.create({ clientRequestId: 'k', title: 'T' }, PERSON);
    expect(t.createdBy).toBeNull();
    const again = b.create({ id: 'task_other' as typeof t.id, clientRequestId: 'k', title: 'T' }, PERSON);
    expect(again).toEqual(t);
    expect(b.tasks).toHaveLength(1);
    expect(refusal(() => b.create({ clientRequestId: 'k', title: 'Other' }, PERSON)).code).toBe(
      ErrorCode.IDEMPOTENCY_CONFLICT,
    );
  });

  it('replays a keyed create after the task was edited and moved, compared with the original input', () => {
    const b = new TestBoard();
    const request = { clientRequestId: 'k', title: 'T', details: 'D', writeScope: ['src/a', 'docs'] };
    const t = b.create(request, PERSON);
    b.run({ type: 'update', taskId: t.id, expectedRevision: 1, title: 'Renamed', details: null }, PERSON);
    b.run({ type: 'claim', taskId: t.id, expectedRevision: 2 }, as(2));
    const now = b.tasks.map((task) => ({ ...task }));
    // The same input again (its scopes listed in another order): the task as it is now, unchanged.
    const retry = b.run({ ...b.command(request), writeScope: ['docs', 'src/a'] }, PERSON);
    expect(retry).toMatchObject({ changed: false, previousRevision: 3 });
    expect(retry.task).toEqual(now[0]);
    expect(retry.task).toMatchObject({ id: t.id, title: 'Renamed', status: TaskStatus.CLAIMED, revision: 3 });
    expect(b.tasks).toEqual(now);
    // Any other input under the key, the task's current fields included, is still a conflict.
    const others = [{ title: 'Renamed', details: null }, { details: 'E' }, { writeScope: ['src/a'] }];
    for (const other of [...others, { dependsOn: [t.id] }, { assigneeId: mid(1) }]) {
      expect(refusal(() => b.create({ ...request, ...other }, PERSON)).code).toBe(ErrorCode.IDEMPOTENCY_CONFLICT);
    }
  });

  it('compares the current title and details for a task stored without a request fingerprint', () => {
    const b = new TestBoard();
    const t = b.create({ clientRequestId: 'k', title: 'T' }, PERSON);
    // As a task created before its request's fingerprint was stored (migration 0019) reads.
    b.tasks[0] = { ...t, requestFingerprint: null };
    expect(b.create({ clientRequestId: 'k', title: 'T' }, PERSON).id).toBe(t.id);
    b.run({ type: 'update', taskId: t.id, expectedRevision: 1, title: 'Renamed' }, PERSON);
    expect(refusal(() => b.create({ clientRequestId: 'k', title: 'T' }, PERSON)).code).toBe(
      ErrorCode.IDEMPOTENCY_CONFLICT,
    );
    expect(b.create({ clientRequestId: 'k', title: 'Renamed' }, PERSON)).toMatchObject({ id: t.id, revision: 2 });
    expect(b.tasks).toHaveLength(1);
  });

  it('refuses every write once the team is closed', () => {
    const b = new TestBoard();
    const t = b.create();
    b.teamStatus = TeamStatus.CLOSED;
    expect(refusal(() => b.create()).code).toBe(ErrorCode.TEAM_CLOSED);
    expect(refusal(() => b.run({ type: 'claim', taskId: t.id, expectedRevision: 1 })).code).toBe(ErrorCode.TEAM_CLOSED);
  });
});

describe('task board: warning bound', () => {
  it(`answers at most ${MAX_SCOPE_WARNINGS} overlap warnings`, () => {
    const b = new TestBoard();
    for (let i = 0; i < 6; i += 1) b.create({ writeScope: Array.from({ length: 20 }, (_, j) => `src/${j}`) });
    const last = b.create({ writeScope: ['src'] });
    expect(b.run({ type: 'update', taskId: last.id, expectedRevision: 1 }).warnings).toHaveLength(MAX_SCOPE_WARNINGS);
  });
});
