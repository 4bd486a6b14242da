import { type Job, JobPhase, type TeamEvent, TeamEventKind } from '@agent-teams/core';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { runWrite } from '../../src/storage/write-transaction.js';
import { closeHarnesses, OWNER, openHarness, removeTempDirs } from '../scheduler/scheduler-harness.js';

afterAll(async () => {
  await closeHarnesses();
  removeTempDirs();
});

describe('TeamEventWriter.mark (work rolled back to a savepoint)', () => {
  it('forgets the events emitted, written and announced since the mark, and logs the rest gap-free', async () => {
    const h = await openHarness();
    const { team, members } = await h.team(['researcher', 'reviewer']);
    const member = members[0]?.id ?? null;
    const published: TeamEvent[][] = [];
    const ctx = {
      db: h.database.db,
      dialect: 'sqlite' as const,
      sink: { published: (e: readonly TeamEvent[]) => published.push([...e]) },
      ids: null,
    };
    const before = await h.core.events.read(OWNER, team.id, 0, 1_000);
    await runWrite(ctx, new Date().toISOString(), async (scope) => {
      await scope.events.emit(team.id, TeamEventKind.TEAM_CHANGED);
      await scope.events.emit(team.id, TeamEventKind.MEMBER_CHANGED, { memberId: member });
      await scope.events.flush();
      // Pending at the mark: written inside the savepoint, so pending again after the rollback.
      await scope.events.emit(team.id, TeamEventKind.RECORD_APPENDED);
      const restore = scope.events.mark();
      await sql`savepoint s`.execute(scope.trx);
      await scope.events.emit(team.id, TeamEventKind.TASK_CHANGED, { taskId: 'task_x' as never });
      await scope.events.flush();
      scope.events.announce({ ...(scope.events.events[0] as TeamEvent), seq: 999 });
      await sql`rollback to savepoint s`.execute(scope.trx);
      await sql`release savepoint s`.execute(scope.trx);
      restore();
      // Emitted before the mark, so still deduplicated; emitted only in the rolled-back work, so new.
      await scope.events.emit(team.id, TeamEventKind.MEMBER_CHANGED, { memberId: member });
      await scope.events.emit(team.id, TeamEventKind.TASK_CHANGED, { taskId: 'task_x' as never });
    });
    const log = (await h.core.events.read(OWNER, team.id, 0, 1_000)).slice(before.length);
    expect(log.map((event) => event.kind)).toEqual([
      TeamEventKind.TEAM_CHANGED,
      TeamEventKind.MEMBER_CHANGED,
      TeamEventKind.RECORD_APPENDED,
      TeamEventKind.TASK_CHANGED,
    ]);
    expect(log.at(-1)?.taskId).toBe('task_x');
    expect(log.map((event) => event.seq)).toEqual(log.map((_, i) => (before.at(-1)?.seq ?? 0) + 1 + i));
    expect(published).toEqual([log]);
  });

  it('forgets the jobs noted since the mark and keeps the ones noted before', async () => {
    const h = await openHarness();
    const { team, members } = await h.team(['researcher', 'reviewer']);
    const [job] = await h.send(team, members.slice(0, 1), 'Noted');
    if (job === undefined) throw new Error('no job');
    const published: Map<string, Job>[] = [];
    const ctx = {
      db: h.database.db,
      dialect: 'sqlite' as const,
      sink: {
        published: (_events: readonly TeamEvent[], rows?: { jobs: ReadonlyMap<string, Job> }) =>
          published.push(new Map(rows?.jobs ?? [])),
      },
      ids: null,
    };
    const other = { ...job, id: `${job.id}_other` as Job['id'] };
    await runWrite(ctx, new Date().toISOString(), async (scope) => {
      await scope.events.emit(team.id, TeamEventKind.TEAM_CHANGED);
      scope.events.rows.noteJob(job);
      const restore = scope.events.mark();
      scope.events.rows.noteJob({ ...job, phase: JobPhase.CANCELLED });
      scope.events.rows.noteJob(other);
      restore();
    });
    expect(published).toEqual([new Map([[job.id, job]])]);
  });
});
