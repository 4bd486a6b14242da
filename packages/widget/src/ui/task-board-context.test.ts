import { describe, expect, it } from 'vitest';
import { ENGLISH } from '../i18n.js';
import { TaskWriteError } from '../task-board-api.js';
import type { TaskBoardState } from '../task-board-state.js';
import { type BoardContextValue, describeDraftProblem, describeTaskError } from './task-board-context.js';
import { boardStrings } from './task-board-strings.js';

const titles: Record<string, string> = { task_a: 'Spec', task_b: 'Tests' };
const ctx = {
  board: { task: (id: string) => (titles[id] ? { title: titles[id] } : undefined) } as unknown as TaskBoardState,
  s: () => boardStrings('en'),
} as BoardContextValue;
const say = (error: unknown) => describeTaskError(error, ctx, ENGLISH);

describe('task write errors in words', () => {
  it('name tasks by title (by id when the board does not hold them), the owner and the limit', () => {
    expect(say(new TaskWriteError('TASK_BLOCKED', undefined, ['task_a', 'task_x']))).toBe(
      'Not assigned: these dependencies are not done yet: Spec, task_x.',
    );
    expect(say(new TaskWriteError('TASK_CYCLE', undefined, ['task_a', 'task_b', 'task_a']))).toBe(
      'These dependencies would make a cycle: Spec → Tests → Spec.',
    );
    expect(say(new TaskWriteError('TASK_CLAIMED', undefined, [], 'Research'))).toBe('Research already owns this task.');
    expect(say(new TaskWriteError('TASK_LIMIT'))).toBe('The team already holds 256 tasks.');
    expect(say(new TaskWriteError('TASK_STALE_REVISION', 7))).toContain('(revision 7)');
  });

  it('show any other code as the widget does, and NETWORK for what is not a GraphQL error', () => {
    expect(say(new TaskWriteError('TEAM_CLOSED'))).toBe('Request failed (TEAM_CLOSED).');
    expect(say(new TypeError('Failed to fetch'))).toBe('Request failed (NETWORK).');
  });

  it('word draft problems like the widget’s other limits', () => {
    const s = boardStrings('en');
    expect(
      describeDraftProblem({ field: 'title', problem: 'blank', limit: { chars: 200, bytes: 800 } }, s, ENGLISH),
    ).toBe('Title must not be blank.');
    expect(describeDraftProblem({ field: 'dependencies', problem: 'tooMany', max: 32 }, s, ENGLISH)).toBe(
      'Dependencies must hold at most 32 entries.',
    );
    expect(
      describeDraftProblem({ field: 'scope', problem: 'tooLong', limit: { chars: 200, bytes: 800 } }, s, ENGLISH),
    ).toBe('Write scopes must be at most 200 characters and 800 UTF-8 bytes.');
  });
});
