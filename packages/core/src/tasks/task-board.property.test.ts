import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isDomainError } from '../errors/domain-error.js';
import { asTaskId, TaskStatus } from './task.js';
import { as, mid, TestBoard } from './task-fixtures.js';

/** One step of a run: who does what to which task, with which revision offset (0 = current). */
type Step =
  | { readonly op: 'create'; readonly by: number; readonly deps: readonly number[] }
  | {
      readonly op: 'claim' | 'complete' | 'release' | 'cancel';
      readonly by: number;
      readonly task: number;
      readonly skew: number;
    };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('create' as const), by: fc.nat(2), deps: fc.array(fc.nat(8), { maxLength: 3 }) }),
  fc.record({
    op: fc.constantFrom('claim' as const, 'complete' as const, 'release' as const, 'cancel' as const),
    by: fc.nat(2),
    task: fc.nat(),
    // Mostly the current revision; sometimes a stale or a future one.
    skew: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: -2, max: 2 }) }),
  }),
);

/** The simple model: what each task is, written from the contract's rules directly. */
interface ModelTask {
  status: 'OPEN' | 'CLAIMED' | 'DONE' | 'CANCELLED';
  owner: number | null;
  revision: number;
  readonly creator: number;
  readonly deps: readonly number[];
}

/** The model's outcome of a step: the error code, or null with the model updated. */
function model(tasks: ModelTask[], s: Step): string | null {
  if (s.op === 'create') {
    const deps = [...new Set(s.deps.filter((d) => d < tasks.length))];
    tasks.push({ status: 'OPEN', owner: null, revision: 1, creator: s.by, deps });
    return null;
  }
  const t = tasks[s.task % tasks.length] as ModelTask;
  if (s.skew !== 0) return 'TASK_STALE_REVISION';
  const lead = s.by === 0;
  const allowed = {
    claim: true,
    complete: t.owner === s.by || lead,
    release: t.owner === s.by || lead,
    cancel: t.creator === s.by || lead,
  }[s.op];
  if (!allowed) return 'FORBIDDEN';
  if (t.status === 'DONE' || t.status === 'CANCELLED') return 'INVALID_TRANSITION';
  const blocked = t.deps.some((d) => tasks[d]?.status !== 'DONE');
  switch (s.op) {
    case 'claim':
      if (t.owner === s.by) return null;
      if (t.owner !== null) return 'TASK_CLAIMED';
      if (blocked) return 'TASK_BLOCKED';
      Object.assign(t, { status: 'CLAIMED', owner: s.by });
      break;
    case 'complete':
      if (blocked) return 'TASK_BLOCKED';
      t.status = 'DONE';
      break;
    case 'release':
      if (t.status !== 'CLAIMED') return 'INVALID_TRANSITION';
      Object.assign(t, { status: 'OPEN', owner: null });
      break;
    case 'cancel':
      t.status = 'CANCELLED';
      break;
  }
  t.revision += 1;
  return null;
}

/** The real board's outcome of a step. */
function real(board: TestBoard, s: Step): string | null {
  try {
    if (s.op === 'create') {
      const deps = [...new Set(s.deps.filter((d) => d < board.tasks.length))];
      board.create({ dependsOn: deps.map((d) => asTaskId(`task_${d + 1}`)) }, as(s.by));
      return null;
    }
    const task = board.tasks[s.task % board.tasks.length];
    if (task === undefined) throw new Error('no task');
    const base = { taskId: task.id, expectedRevision: task.revision + s.skew };
    board.run(s.op === 'complete' ? { type: s.op, ...base, result: null } : { type: s.op, ...base }, as(s.by));
    return null;
  } catch (error) {
    if (isDomainError(error)) return error.code;
    throw error;
  }
}

describe('task board against a simple model', () => {
  it('agrees on every outcome and every task, and keeps one owner per claimed task with its dependencies done', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 80 }), (steps) => {
        const board = new TestBoard();
        const tasks: ModelTask[] = [];
        for (const s of steps) {
          if (s.op !== 'create' && tasks.length === 0) continue;
          expect(real(board, s)).toBe(model(tasks, s));
          expect(board.tasks.map((t) => [t.status, t.ownerId, t.revision])).toEqual(
            tasks.map((t) => [t.status, t.owner === null ? null : mid(t.owner), t.revision]),
          );
        }
        for (const task of board.tasks.filter((t) => t.status === TaskStatus.CLAIMED)) {
          expect(task.ownerId).not.toBeNull();
          const deps = task.dependsOn.map((id) => board.tasks.find((t) => t.id === id)?.status);
          expect(deps.every((status) => status === TaskStatus.DONE)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
