import { describe, expect, it } from 'vitest';
import { canCreateTask, checkTaskDraft, draftScopes, TASK_LIMITS, type TaskDraft } from './task-limits.js';

const draft = (changes: Partial<TaskDraft> = {}): TaskDraft => ({
  title: 'Task',
  details: '',
  dependsOn: [],
  scopes: '',
  ...changes,
});
const units = [
  ['ASCII', 'a'],
  ['CJK', '研'],
  ['emoji', '😀'],
] as const;

describe('task draft limits', () => {
  it('match the contract', () => {
    expect(TASK_LIMITS).toEqual({
      title: { chars: 200, bytes: 800 },
      details: { chars: 4000, bytes: 8000 },
      scope: { chars: 200, bytes: 800 },
      dependencies: 32,
      scopes: 20,
      tasksPerTeam: 256,
    });
  });

  it.each(units)('accept a title at n−1 and n and refuse n+1 (%s)', (_label, unit) => {
    expect(checkTaskDraft(draft({ title: unit.repeat(199) }))).toBeNull();
    expect(checkTaskDraft(draft({ title: unit.repeat(200) }))).toBeNull();
    expect(checkTaskDraft(draft({ title: unit.repeat(201) }))).toEqual({
      field: 'title',
      problem: 'tooLong',
      limit: TASK_LIMITS.title,
    });
  });

  it.each([...units.map(([l, u]) => [l, u, u === 'a' ? 4000 : u === '研' ? 2666 : 2000] as const)])(
    'accept details at n−1 and n and refuse n+1 (%s)',
    (_label, unit, n) => {
      expect(checkTaskDraft(draft({ details: unit.repeat(n - 1) }))).toBeNull();
      expect(checkTaskDraft(draft({ details: unit.repeat(n) }))).toBeNull();
      expect(checkTaskDraft(draft({ details: unit.repeat(n + 1) }))?.field).toBe('details');
    },
  );

  it.each(units)('accept a write scope at n−1 and n and refuse n+1 (%s)', (_label, unit) => {
    expect(checkTaskDraft(draft({ scopes: unit.repeat(199) }))).toBeNull();
    expect(checkTaskDraft(draft({ scopes: `x\n${unit.repeat(200)}` }))).toBeNull();
    expect(checkTaskDraft(draft({ scopes: unit.repeat(201) }))?.field).toBe('scope');
  });

  it('accept 31 and 32 dependencies and refuse 33', () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `task_${i}`);
    expect(checkTaskDraft(draft({ dependsOn: ids(31) }))).toBeNull();
    expect(checkTaskDraft(draft({ dependsOn: ids(32) }))).toBeNull();
    expect(checkTaskDraft(draft({ dependsOn: ids(33) }))).toEqual({
      field: 'dependencies',
      problem: 'tooMany',
      max: 32,
    });
  });

  it('accept 19 and 20 write scopes and refuse 21, counting distinct non-empty lines', () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `src/${i}`).join('\n');
    expect(checkTaskDraft(draft({ scopes: lines(19) }))).toBeNull();
    expect(checkTaskDraft(draft({ scopes: `${lines(20)}\n\n src/0 ` }))).toBeNull();
    expect(checkTaskDraft(draft({ scopes: lines(21) }))).toEqual({ field: 'scopes', problem: 'tooMany', max: 20 });
  });

  it('refuse a blank title and unstorable text; blank details mean none', () => {
    expect(checkTaskDraft(draft({ title: '  ' }))?.problem).toBe('blank');
    expect(checkTaskDraft(draft({ title: 'a\u0000' }))?.problem).toBe('unstorable');
    expect(checkTaskDraft(draft({ details: ' \n ' }))).toBeNull();
    expect(checkTaskDraft(draft({ details: 'x\ud800' }))?.problem).toBe('unstorable');
  });

  it('offer a new task at 254 and 255 tasks, not at 256 or 257', () => {
    expect([254, 255, 256, 257].map(canCreateTask)).toEqual([true, true, false, false]);
  });

  it('read write scopes one per line, trimmed, without empty lines or repeats', () => {
    expect(draftScopes({ scopes: ' a/ \n\nb\na/\n' })).toEqual(['a/', 'b']);
  });
});
