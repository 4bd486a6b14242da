import { describe, expect, it } from 'vitest';
import { isDomainError } from '../errors/domain-error.js';
import { asOwnerId, asTeamId } from '../model/ids.js';
import type { Team } from '../model/team.js';
import { type TeamEvent, teamChangedEvent } from '../ports/event-sink.js';
import type { TeamStore } from '../ports/team-store.js';
import type { CoreDeps } from './core-types.js';
import { eventService } from './event-service.js';

const alice = asOwnerId('alice');
const bob = asOwnerId('bob');
const team = { id: asTeamId('team_1'), owner: alice } as Team;
const events: TeamEvent[] = [1, 2, 3].map((seq) => teamChangedEvent(team.id, alice, seq, '2026-01-01T00:00:00.000Z'));

/** Only the two store methods the event service uses; the rest would throw if touched. */
function depsWithEvents(): { deps: CoreDeps; reads: unknown[][] } {
  const reads: unknown[][] = [];
  const store = {
    findTeam: async (owner: string, teamId: string) => (owner === alice && teamId === team.id ? team : null),
    readEvents: async (teamId: string, afterSeq: number, limit: number) => {
      reads.push([teamId, afterSeq, limit]);
      return events.filter((event) => event.seq > afterSeq).slice(0, limit);
    },
  } as unknown as TeamStore;
  return { deps: { store } as unknown as CoreDeps, reads };
}

describe('eventService.read', () => {
  it("returns the owner's events after the given seq, in order", async () => {
    const { deps } = depsWithEvents();
    const read = await eventService(deps).read(alice, team.id, 1, 10);
    expect(read.map((event) => event.seq)).toEqual([2, 3]);
  });

  it("answers NOT_FOUND for another owner's team without reading its log", async () => {
    const { deps, reads } = depsWithEvents();
    const error = await eventService(deps)
      .read(bob, team.id, 0, 10)
      .catch((e: unknown) => e);
    expect(isDomainError(error, 'NOT_FOUND')).toBe(true);
    expect(reads).toEqual([]);
  });

  it('bounds the page size between 1 and 500', async () => {
    const { deps, reads } = depsWithEvents();
    await eventService(deps).read(alice, team.id, 0, 0);
    await eventService(deps).read(alice, team.id, 0, 10_000);
    expect(reads.map((read) => read[2])).toEqual([1, 500]);
  });
});
