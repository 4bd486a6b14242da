import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../errors/codes.js';
import { refusal } from '../jobs/make-test-job.js';
import { Limits } from '../limits/limits.js';
import {
  validateDependsOn,
  validateRevision,
  validateTaskDetails,
  validateTaskResult,
  validateTaskTitle,
  validateWriteScope,
} from './task-input.js';

const LONE = '\uDE00';
const units = [
  { name: 'ASCII', unit: 'a', bytes: 1 },
  { name: 'CJK', unit: '数', bytes: 3 },
  { name: 'emoji', unit: '😀', bytes: 4 },
] as const;

const texts: [string, (v: unknown) => unknown, { maxChars: number; maxBytes: number }][] = [
  ['title', (v) => validateTaskTitle('title', v), Limits.taskTitle],
  ['details', (v) => validateTaskDetails('details', v), Limits.taskDetails],
  [
    'result',
    (v) => validateTaskResult('result', v),
    { maxChars: Limits.taskResultBytes, maxBytes: Limits.taskResultBytes },
  ],
  ['write_scope', (v) => validateWriteScope('write_scope', [v])[0], Limits.writeScope],
];

describe('task text limits', () => {
  for (const [field, check, limit] of texts) {
    for (const { name, unit, bytes } of units) {
      const most = Math.min(limit.maxChars, Math.floor(limit.maxBytes / bytes));
      it(`${field}: accepts ${most - 1} and ${most} ${name} characters, refuses ${most + 1}`, () => {
        expect(check(unit.repeat(most - 1))).toBe(unit.repeat(most - 1));
        expect(check(unit.repeat(most))).toBe(unit.repeat(most));
        const error = refusal(() => check(unit.repeat(most + 1)));
        expect(error.code).toBe(ErrorCode.INVALID_INPUT);
        expect(error.details.field).toBe(field);
      });
      it(`${field}: refuses ${most - 1} ${name} characters plus a lone surrogate`, () => {
        expect(refusal(() => check(unit.repeat(most - 1) + LONE)).code).toBe(ErrorCode.INVALID_INPUT);
      });
    }
  }

  it('reads empty or absent details and result as none', () => {
    for (const empty of [undefined, null, '']) {
      expect(validateTaskDetails('details', empty)).toBeNull();
      expect(validateTaskResult('result', empty)).toBeNull();
    }
    expect(refusal(() => validateTaskTitle('title', '')).code).toBe(ErrorCode.INVALID_INPUT);
  });
});

describe('task list limits', () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `task_${i}`);
  const scopes = (n: number) => Array.from({ length: n }, (_, i) => `src/${i}`);

  it(`accepts ${Limits.dependenciesPerTask - 1} and ${Limits.dependenciesPerTask} dependencies, refuses one more`, () => {
    expect(validateDependsOn('depends_on', ids(Limits.dependenciesPerTask - 1))).toHaveLength(31);
    expect(validateDependsOn('depends_on', ids(Limits.dependenciesPerTask))).toHaveLength(32);
    const error = refusal(() => validateDependsOn('depends_on', ids(Limits.dependenciesPerTask + 1)));
    expect(error).toMatchObject({ code: ErrorCode.INVALID_INPUT, details: { field: 'depends_on', max: 32 } });
  });

  it(`accepts ${Limits.writeScopesPerTask - 1} and ${Limits.writeScopesPerTask} scopes, refuses one more`, () => {
    expect(validateWriteScope('write_scope', scopes(19))).toHaveLength(19);
    expect(validateWriteScope('write_scope', scopes(20))).toHaveLength(20);
    const error = refusal(() => validateWriteScope('write_scope', scopes(21)));
    expect(error).toMatchObject({ code: ErrorCode.INVALID_INPUT, details: { field: 'write_scope', max: 20 } });
  });

  it('folds duplicates and refuses what is not a list of non-empty strings', () => {
    expect(validateDependsOn('d', ['task_1', 'task_1', 'task_2'])).toEqual(['task_1', 'task_2']);
    expect(validateWriteScope('w', [' src ', 'src'])).toEqual(['src']);
    expect(validateDependsOn('d', undefined)).toEqual([]);
    for (const bad of ['task_1', [1], [''], { a: 1 }]) {
      expect(refusal(() => validateDependsOn('d', bad)).code).toBe(ErrorCode.INVALID_INPUT);
    }
    expect(refusal(() => validateWriteScope('w', [' '])).code).toBe(ErrorCode.INVALID_INPUT);
    expect(refusal(() => validateWriteScope('w', ['src\nlib'])).code).toBe(ErrorCode.INVALID_INPUT);
  });

  it("refuses Unicode's line and paragraph separators in a write scope, as in a member role", () => {
    // "One line" (reference, task board): U+2028/U+2029 start a new line wherever a scope is shown.
    for (const separator of ['\u2028', '\u2029']) {
      const error = refusal(() => validateWriteScope('write_scope', [`src${separator}lib`]));
      expect(error).toMatchObject({ code: ErrorCode.INVALID_INPUT, details: { field: 'write_scope' } });
    }
    // The characters around them stay allowed: a scope is any one line of text.
    expect(validateWriteScope('w', ['src/\u2027\u202a'])).toEqual(['src/\u2027\u202a']);
  });

  it('takes only positive integer revisions', () => {
    expect(validateRevision('expected_revision', 3)).toBe(3);
    for (const bad of [0, -1, 1.5, '2', null, Number.NaN]) {
      expect(refusal(() => validateRevision('expected_revision', bad)).code).toBe(ErrorCode.INVALID_INPUT);
    }
  });
});
