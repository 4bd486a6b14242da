import { AdmissionJobError } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { ServerRefusedError } from './pg-server-check.js';
import { blameRiddenAdmission, RiddenAdmissionFailedError, unwrapRiddenAdmission } from './ridden-admission-failure.js';

/** An error as `pg` makes it from a server's answer: a SQLSTATE `code`. */
function answered(code: string): Error {
  return Object.assign(new Error(`server said ${code}`), { code, severity: 'ERROR' });
}

describe('what a failed write of a ridden admission becomes', () => {
  it.each([
    ['a unique violation', answered('23505')],
    ['a deadlock', answered('40P01')],
    ['a raised exception', answered('P0001')],
    ['a statement timeout', answered('57014')],
    ['an out-of-memory', answered('53200')],
    ['an internal error', answered('XX000')],
    ['a check the server refused', new ServerRefusedError('job step', 0, answered('22P02'))],
    [
      'a job’s failure wrapping a refusal',
      new AdmissionJobError('job_1', 'team_1', new ServerRefusedError('x', 0, null)),
    ],
    ['a job’s failure wrapping a SQLSTATE', new AdmissionJobError('job_1', 'team_1', answered('23503'))],
  ])('wraps %s: the server answered it, so the transaction cannot commit', (_, error) => {
    const blamed = blameRiddenAdmission(error);
    expect(blamed).toBeInstanceOf(RiddenAdmissionFailedError);
    expect((blamed as Error).cause).toBe(error);
    expect(unwrapRiddenAdmission(blamed)).toBe(error);
  });

  it.each([
    ['a connection lost before the answer', new Error('Connection terminated unexpectedly')],
    ['a socket error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })],
    ['a reset', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['a code that is no SQLSTATE', Object.assign(new Error('odd'), { code: '2350' })],
    ['a lowercase code', Object.assign(new Error('odd'), { code: 'p0001' })],
    ['a terminated backend (the COMMIT may have run before it)', answered('57P01')],
    ['a pooler’s lost server connection', answered('08P01')],
    ['a backend that cannot start now', answered('57P03')],
    ['a job’s failure wrapping a lost connection', new AdmissionJobError('job_1', 'team_1', answered('08006'))],
    ['no error at all', 'a string'],
    ['null', null],
  ])('leaves %s as it is: the COMMIT behind it may have run', (_, error) => {
    expect(blameRiddenAdmission(error)).toBe(error);
    expect(unwrapRiddenAdmission(error)).toBe(error);
  });

  it('looks through four levels of causes, not five, and never loops on a cycle', () => {
    /** `answered` as the cause `levels` levels down (0: the error itself). */
    const nested = (levels: number): Error => {
      let error = answered('23505');
      for (let i = 0; i < levels; i += 1) error = new Error(`level ${i}`, { cause: error });
      return error;
    };
    for (const levels of [0, 3, 4])
      expect(blameRiddenAdmission(nested(levels))).toBeInstanceOf(RiddenAdmissionFailedError);
    const tooDeep = nested(5);
    expect(blameRiddenAdmission(tooDeep)).toBe(tooDeep);
    const cyclic = new Error('cycle');
    (cyclic as { cause?: unknown }).cause = cyclic;
    expect(blameRiddenAdmission(cyclic)).toBe(cyclic);
  });
});
