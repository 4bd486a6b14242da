import { JobPhase, type TeamEvent, TeamEventKind } from '@agent-teams/core';
import { afterAll, describe, expect, it } from 'vitest';
import { runWrite } from '../../src/storage/write-transaction.js';
import { closeHarnesses, OWNER, openHarness, removeTempDirs, waitForPhases } from './scheduler-harness.js';

afterAll(async () => {
  await closeHarnesses();
  removeTempDirs();
});

describe('requests sent together share SQLite transactions (decision 0224)', () => {
  it('answers each, publishes each one’s events once and gap-free, and fails only the one that fails', async () => {
    const h = await openHarness();
    const teams = [await h.team(['researcher', 'reviewer']), await h.team(['researcher', 'writer'])];
    const [first] = teams;
    if (first === undefined) throw new Error('no team');
    const reused = {
      teamId: first.team.id,
      memberIds: first.members.slice(0, 1).map((member) => member.id),
      clientRequestId: 'reused',
    };
    const [earlier] = await h.core.requests.send(OWNER, { ...reused, text: 'first text' });
    if (earlier === undefined) throw new Error('no job');
    await waitForPhases(h, [earlier.id], [JobPhase.COMPLETED]);
    await h.scheduler.idle();
    const published: TeamEvent[] = [];
    h.app.events.listen((events) => published.push(...events));
    const heads = await Promise.all(
      teams.map(async ({ team }) => (await h.core.teams.get(OWNER, team.id))?.lastEventSeq),
    );
    // Sent in one turn of the event loop: one transaction, one savepoint each.
    const sends = [
      ...teams.flatMap(({ team, members }) => members.map((member) => h.send(team, [member], 'hello'))),
      // Refused inside its transaction (its key names another text): rolled back to its savepoint.
      h.core.requests.send(OWNER, { ...reused, text: 'another text' }),
    ];
    const results = await Promise.allSettled(sends);
    expect(results.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
    ]);
    expect((results[4] as PromiseRejectedResult).reason).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
    const jobs = results.flatMap((result) => (result.status === 'fulfilled' ? result.value : []));
    expect(jobs).toHaveLength(4);
    await waitForPhases(
      h,
      jobs.map((job) => job.id),
      [JobPhase.COMPLETED],
    );
    for (const [i, { team }] of teams.entries()) {
      const log = await h.core.events.read(OWNER, team.id, heads[i] ?? 0, 1_000);
      // Gap-free from the head before the sends, and published exactly as logged, once each.
      expect(log.map((event) => event.seq)).toEqual(log.map((_, at) => (heads[i] ?? 0) + 1 + at));
      expect(published.filter((event) => event.teamId === team.id)).toEqual(log);
    }
  });

  it('never publishes the events of a write rolled back to its savepoint, and the next write takes their seqs', async () => {
    const h = await openHarness();
    const { team } = await h.team(['researcher', 'reviewer']);
    const published: TeamEvent[][] = [];
    const ctx = {
      db: h.database.db,
      dialect: 'sqlite' as const,
      sink: { published: (events: readonly TeamEvent[]) => published.push([...events]) },
      ids: null,
    };
    const head = (await h.core.teams.get(OWNER, team.id))?.lastEventSeq ?? 0;
    const emit = (fail: boolean) =>
      runWrite(ctx, new Date().toISOString(), async (scope) => {
        await scope.events.emit(team.id, TeamEventKind.TEAM_CHANGED);
        // Written (seq taken, the team's head moved) inside the write's savepoint, then refused.
        await scope.events.flush();
        if (fail) throw new Error('refused after its events were written');
      });
    const results = await Promise.allSettled([emit(false), emit(true), emit(false)]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const log = await h.core.events.read(OWNER, team.id, head, 1_000);
    expect(log.map((event) => event.seq)).toEqual([head + 1, head + 2]);
    expect(published).toEqual([[log[0]], [log[1]]]);
  });
});
