import { describe, expect, it } from 'vitest';
import { JobPhase } from './job.js';
import { deriveMemberStatus } from './member-status.js';
import { TeamStatus } from './team.js';

const RETIRED_AT = '2026-11-30T04:00:00.000Z';

describe('deriveMemberStatus', () => {
  it('shows PROVISIONING while the team is being created, whatever its jobs do', () => {
    expect(deriveMemberStatus(TeamStatus.CREATING, { head: JobPhase.RUNNING, lastFinished: null }, null)).toBe(
      'PROVISIONING',
    );
    expect(deriveMemberStatus(TeamStatus.CREATING, { head: null, lastFinished: JobPhase.FAILED }, null)).toBe(
      'PROVISIONING',
    );
  });

  it('follows the head job of the conversation', () => {
    const cases: [JobPhase, string][] = [
      [JobPhase.QUEUED, 'QUEUED'],
      [JobPhase.ADMITTING, 'QUEUED'],
      [JobPhase.ANSWERED, 'QUEUED'],
      [JobPhase.RUNNING, 'RUNNING'],
      [JobPhase.RESUMING, 'RUNNING'],
      [JobPhase.CANCELLING, 'RUNNING'],
      [JobPhase.WAITING_CHANGE, 'RUNNING'],
      [JobPhase.WAITING_INPUT, 'WAITING_INPUT'],
    ];
    for (const [head, status] of cases) {
      expect(deriveMemberStatus(TeamStatus.READY, { head, lastFinished: JobPhase.FAILED }, null)).toBe(status);
      expect(deriveMemberStatus(TeamStatus.DISCONNECTED, { head, lastFinished: null }, null)).toBe(status);
      expect(deriveMemberStatus(TeamStatus.CLOSED, { head, lastFinished: null }, null)).toBe(status);
    }
  });

  it('shows FAILED when idle after a failed job and IDLE otherwise', () => {
    expect(deriveMemberStatus(TeamStatus.READY, { head: null, lastFinished: JobPhase.FAILED }, null)).toBe('FAILED');
    expect(deriveMemberStatus(TeamStatus.READY, { head: null, lastFinished: JobPhase.COMPLETED }, null)).toBe('IDLE');
    expect(deriveMemberStatus(TeamStatus.READY, { head: null, lastFinished: JobPhase.CANCELLED }, null)).toBe('IDLE');
    expect(deriveMemberStatus(TeamStatus.READY, { head: null, lastFinished: null }, null)).toBe('IDLE');
  });

  it('shows RETIRED once retired, before the team status and any job', () => {
    for (const teamStatus of Object.values(TeamStatus)) {
      for (const head of [null, ...Object.values(JobPhase)]) {
        expect(deriveMemberStatus(teamStatus, { head, lastFinished: JobPhase.FAILED }, RETIRED_AT)).toBe('RETIRED');
      }
    }
  });
});
