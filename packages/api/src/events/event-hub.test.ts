import { asOwnerId, asTeamId, type TeamEvent, teamChangedEvent } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { createEventHub } from './event-hub.js';

const event = (teamId: string, seq: number): TeamEvent =>
  teamChangedEvent(asTeamId(teamId), asOwnerId('alice'), seq, '2026-01-01T00:00:00.000Z');

const settled = async (promise: Promise<unknown>) => {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('createEventHub', () => {
  it('wakes a waiter registered before the publish, and only for its team', async () => {
    const hub = createEventHub();
    const one = hub.waitForTeam(asTeamId('team_1'));
    const two = hub.waitForTeam(asTeamId('team_2'));
    hub.published([event('team_1', 1)]);
    expect(await settled(one)).toBe(true);
    expect(await settled(two)).toBe(false);
  });

  it('does not wake a waiter registered after the publish (the caller re-reads the log instead)', async () => {
    const hub = createEventHub();
    hub.published([event('team_1', 1)]);
    expect(await settled(hub.waitForTeam(asTeamId('team_1')))).toBe(false);
  });

  it('resolves a waiter whose signal aborts, and forgets it', async () => {
    const hub = createEventHub();
    const controller = new AbortController();
    const waiting = hub.waitForTeam(asTeamId('team_1'), controller.signal);
    controller.abort();
    expect(await settled(waiting)).toBe(true);
    expect(await settled(hub.waitForTeam(asTeamId('team_1'), controller.signal))).toBe(true);
  });

  it('hands every batch to listeners until they unsubscribe', () => {
    const hub = createEventHub();
    const seen: number[][] = [];
    const unlisten = hub.listen((events) => seen.push(events.map((e) => e.seq)));
    hub.published([event('team_1', 1), event('team_2', 1)]);
    unlisten();
    hub.published([event('team_1', 2)]);
    expect(seen).toEqual([[1, 1]]);
  });
});
