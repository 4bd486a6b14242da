import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { refusal } from '../jobs/make-test-job.js';
import { checkArgumentTypes } from './argument-types.js';
import { LIFECYCLE_TOOL_SPECS } from './lifecycle-tool-specs.js';
import { inToolArgumentNames } from './tool-argument-names.js';

const TASK_WRITE = ['team_id', 'task_id', 'expected_revision', 'depends_on'];

describe('tool errors in the tools’ argument names', () => {
  it('renames the field and the same word of the message, keeping the code and other details', () => {
    const shared = new DomainError(ErrorCode.TASK_STALE_REVISION, 'expectedRevision is 2, not expectedRevisions.', {
      field: 'expectedRevision',
      currentRevision: 2,
    });
    const renamed = inToolArgumentNames(shared, TASK_WRITE) as DomainError;
    expect(renamed).toBeInstanceOf(DomainError);
    expect(renamed).toMatchObject({
      code: ErrorCode.TASK_STALE_REVISION,
      message: 'expected_revision is 2, not expectedRevisions.',
      details: { field: 'expected_revision', currentRevision: 2 },
    });
  });

  it('leaves a field the tool does not take, a tool-named field and other errors as they are', () => {
    const spawnKey = new DomainError(ErrorCode.IDEMPOTENCY_CONFLICT, 'clientRequestId was used.', {
      field: 'clientRequestId',
    });
    expect(inToolArgumentNames(spawnKey, TASK_WRITE)).toBe(spawnKey);
    expect(inToolArgumentNames(spawnKey, ['request_id'])).toMatchObject({
      message: 'request_id was used.',
      details: { field: 'request_id' },
    });
    const own = new DomainError(ErrorCode.INVALID_INPUT, 'depends_on must be a list.', { field: 'depends_on' });
    expect(inToolArgumentNames(own, TASK_WRITE)).toBe(own);
    const plain = new Error('taskId');
    expect(inToolArgumentNames(plain, TASK_WRITE)).toBe(plain);
  });
});

describe('the lead tools’ argument types', () => {
  const spawn = LIFECYCLE_TOOL_SPECS[0];

  it('refuses a missing required argument and a wrong type, naming it', () => {
    expect(refusal(() => checkArgumentTypes(spawn, { name: 'Cy', agent: 'a' })).details).toEqual({
      field: 'request_id',
    });
    const wrong = refusal(() => checkArgumentTypes(spawn, { name: 'Cy', agent: 1, request_id: 'r' }));
    expect(wrong).toMatchObject({ code: ErrorCode.INVALID_INPUT, message: 'agent must be a string.' });
  });

  it('accepts well-typed arguments and null for an optional one, whatever their values', () => {
    expect(() => checkArgumentTypes(spawn, { name: ' ', agent: '', role: null, request_id: 'r' })).not.toThrow();
  });
});
