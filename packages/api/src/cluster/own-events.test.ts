import { asOwnerId, asTeamId, type TeamEvent } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { OwnEvents } from './own-events.js';

function event(team: string, seq: number): TeamEvent {
  return {
    teamId: asTeamId(team),
    owner: asOwnerId('o'),
    seq,
    kind: 'TEAM_CHANGED',
    jobId: null,
    recordId: null,
    memberId: null,
    createdAt: '2026-01-01T00:00:00.000Z',
  };
}

describe('OwnEvents', () => {
  it('knows events by team and seq', () => {
    const own = new OwnEvents();
    own.add([event('t1', 1), event('t1', 2)], 0);
    expect(own.has('t1', 2, 0)).toBe(true);
    expect(own.has('t1', 3, 0)).toBe(false);
    expect(own.has('t2', 1, 0)).toBe(false);
  });

  it('forgets events older than maxAgeMs', () => {
    const own = new OwnEvents({ maxAgeMs: 1_000 });
    own.add([event('t1', 1)], 0);
    own.add([event('t1', 2)], 500);
    expect(own.has('t1', 1, 999)).toBe(true);
    expect(own.has('t1', 1, 1_000)).toBe(false);
    expect(own.has('t1', 2, 1_000)).toBe(true);
  });

  it('keeps at most maxSize events, forgetting the oldest', () => {
    const own = new OwnEvents({ maxSize: 2 });
    own.add([event('t1', 1), event('t1', 2), event('t1', 3)], 0);
    expect(own.size).toBe(2);
    expect(own.has('t1', 1, 0)).toBe(false);
    expect(own.has('t1', 3, 0)).toBe(true);
  });
});
