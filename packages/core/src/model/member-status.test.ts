import { describe, expect, it } from 'vitest';
import { JobPhase } from './job.js';
import { deriveMemberStatus } from './member-status.js';
import { TeamStatus } from './team.js';

describe('deriveMemberStatus', () => {
  it('shows PROVISIONING while the team is being created, whatever its jobs do', () => {
    expect(deriveMemberStatus(TeamStatus.CREATING, { head: JobPhase.RUNNING, lastFinished: null })).toBe(
      'PROVISIONING',
    );
    expect(deriveMemberStatus(TeamStatus.CREATING, { head: null, lastFinished: JobPhase.FAILED })).toBe('PROVISIONING');
  });

  it('follows the head job of the conversation', () => {
    const cases: [JobPhase, string][] = [
      [JobPhase.QUEUED, 'QUEUED'],
      [JobPhase.ADMITTING, 'QUEUED'],
      [JobPhase.RUNNING, 'RUNNING'],
      [JobPhase.RESUMING, 'RUNNING'],
      [JobPhase.CANCELLING, 'RUNNING'],
      [JobPhase.WAITING_INPUT, 'WAITING_INPUT'],
    ];
    for (const [head, status] of cases) {
      expect(deriveMemberStatus(TeamStatus.READY, { head, lastFinished: JobPhase.FAILED })).toBe(status);
      expect(deriveMemberStatus(TeamStatus.DISCONNECTED, { head, lastFinished: null })).toBe(status);
    }
  });

  it('shows FAILED when idle after a failed job and IDLE otherwise', () => {
    expect(deriveMemberStatus(TeamStatus.READY, { head: null, lastFinished: JobPhase.FAILED })).toBe('FAILED');
    expect(deriveMemberStatus(TeamStatus.READY, { head: null, lastFinished: JobPhase.COMPLETED })).toBe('IDLE');
    expect(deriveMemberStatus(TeamStatus.READY, { head: null, lastFinished: JobPhase.CANCELLED })).toBe('IDLE');
    expect(deriveMemberStatus(TeamStatus.READY, { head: null, lastFinished: null })).toBe('IDLE');
  });
});
