import {
  asOwnerId,
  type CommittedRows,
  type EventSink,
  JobPhase,
  type TeamEvent,
  TeamEventKind,
} from '@agent-teams/core';
import { StaticCatalog } from '@agent-teams/testkit';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/create-app.js';
import { DriverErrorKind, StorageError } from '../../src/storage/driver-errors.js';
import { writeJobStep } from '../../src/storage/job-row-writes.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';
import { writeThenCheck } from '../../src/storage/pg-held-connection.js';
import { exactlyOneRow } from '../../src/storage/pg-server-check.js';
import { runWrite, type StoreContext, type WriteScope } from '../../src/storage/write-transaction.js';
import { TEST_AGENTS } from '../scheduler/scheduler-harness.js';
import { heldOf, insertProbe, openProbeDatabase, type ProbeDatabase, storedProbe } from '../support/pg-probe.js';
import type { RoundTripRecorder } from '../support/pg-round-trips.js';
import { openTestApp } from '../support/test-app.js';

// Writes a PostgreSQL transaction sends and leaves, checked by the server: the COMMIT goes in
// their round trip, and when one fails, the COMMIT answers ROLLBACK and the write fails with it.

let probe: ProbeDatabase;
let database: OpenedDatabase;
let ctx: StoreContext;
let trips: RoundTripRecorder;
let app: App;
const NOW = '2026-12-07T00:00:00.000Z';

beforeAll(async () => {
  probe = await openProbeDatabase('agent_teams_server_checked');
  ({ database, ctx, trips } = probe);
  app = await openTestApp({
    database: await openDatabase(probe.fresh.url, { poolSize: 2 }),
    catalog: new StaticCatalog(TEST_AGENTS),
    start: false,
  });
}, 60_000);
afterAll(async () => {
  await app?.close();
  await probe?.close();
});

/** The probe row `id`'s update, as one statement that fails unless it updated exactly one row. */
function updateExactlyOne(scope: WriteScope, id: string, n: number) {
  const update = scope.trx
    .updateTable('probe' as never)
    .set({ n } as never)
    .where('id' as never, '=', id as never);
  return exactlyOneRow(scope.trx, update.returning('n' as never), 'the probe row to update').compile();
}

describe('writes the server checks, left until the COMMIT (PostgreSQL)', () => {
  it('send the COMMIT in their round trip, and commit what they wrote', async () => {
    const since = trips.mark();
    await runWrite(ctx, NOW, async (scope) => {
      await heldOf(scope).run('select 1', []);
      await insertProbe(scope, 'one', 1, true);
      await insertProbe(scope, 'two', 2, true);
    });
    expect(await storedProbe(database, 'two')).toBe(2);
    const [transaction] = trips.transactions(since);
    if (transaction === undefined) throw new Error('no transaction recorded');
    expect(transaction.map((s) => s.text)).toEqual([
      'begin',
      'select 1',
      'insert into probe (id, n) values ($1, $2)',
      'insert into probe (id, n) values ($1, $2)',
      'commit',
    ]);
    // Both inserts and the COMMIT in one round trip (a checked insert would wait before the COMMIT).
    const [, select, first, second, commit] = transaction;
    expect(new Set([first?.trip, second?.trip, commit?.trip]).size).toBe(1);
    expect(commit?.trip).toBe((select?.trip ?? 0) + 1);
  });

  it('fail with the statement that failed when the COMMIT answers ROLLBACK, and commit nothing', async () => {
    await runWrite(ctx, NOW, async (scope) => insertProbe(scope, 'taken', 1, true));
    const failed = runWrite(ctx, NOW, async (scope) => {
      await heldOf(scope).run('select 1', []);
      await insertProbe(scope, 'before-the-duplicate', 1, true);
      await insertProbe(scope, 'taken', 1, true);
      await insertProbe(scope, 'after-the-duplicate', 1, true);
    });
    const error = await failed.catch((caught: unknown) => caught);
    // Without the COMMIT's answer read, this write reported success and wrote nothing.
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).kind).toBe(DriverErrorKind.UNIQUE_VIOLATION);
    expect(await storedProbe(database, 'before-the-duplicate')).toBeUndefined();
    expect(await storedProbe(database, 'after-the-duplicate')).toBeUndefined();
  });

  it('retry a write whose left statement failed at the COMMIT as that failure', async () => {
    let attempts = 0;
    await runWrite(
      ctx,
      NOW,
      async (scope) => {
        attempts += 1;
        await heldOf(scope).run('select 1', []);
        await insertProbe(scope, attempts === 1 ? 'taken' : 'retried', attempts, true);
      },
      { retryOnUniqueViolation: true },
    );
    expect(attempts).toBe(2);
    expect(await storedProbe(database, 'retried')).toBe(2);
  });

  it('refuse on the server a statement that must write exactly one row, naming its check', async () => {
    await runWrite(ctx, NOW, async (scope) => insertProbe(scope, 'to-update', 1, true));
    const answered = await runWrite(ctx, NOW, async (scope) => {
      const { sql: text, parameters } = updateExactlyOne(scope, 'to-update', 5);
      return (await heldOf(scope).run<{ n: number }>(text, parameters)).rows;
    });
    expect(answered).toEqual([{ n: 5 }]);
    const failed = runWrite(ctx, NOW, async (scope) => {
      await heldOf(scope).run('select 1', []);
      await insertProbe(scope, 'beside-the-refusal', 1, true);
      const { sql: text, parameters } = updateExactlyOne(scope, 'missing', 9);
      await writeThenCheck(
        scope.trx,
        () => heldOf(scope).run(text, parameters),
        () => undefined,
        true,
      );
    });
    await expect(failed).rejects.toThrow('the server refused a write: the probe row to update, rows: 0');
    expect(await storedProbe(database, 'beside-the-refusal')).toBeUndefined();
  });

  it('fail the write with a left statement that failed before a savepoint, though the work rolls back to that savepoint', async () => {
    await runWrite(ctx, NOW, async (scope) => insertProbe(scope, 'held-before', 1, true));
    // As an admission riding an enqueue does (`admission-ride.ts`): the enqueue's writes are left,
    // the savepoint and the ride's reads follow them, and the ride's failure rolls back to it.
    const failed = runWrite(ctx, NOW, async (scope) => {
      const held = heldOf(scope);
      await held.run('select 1', []);
      await insertProbe(scope, 'held-before', 1, true);
      await insertProbe(scope, 'enqueued-beside', 1, true);
      held.defer(held.run('SAVEPOINT ride', []), () => undefined, true);
      try {
        await held.run('select 1', []);
        await held.settle();
      } catch (thrown) {
        const error = (await held.firstFailure())?.error ?? thrown;
        try {
          await held.run('ROLLBACK TO SAVEPOINT ride', []);
        } catch {
          // No savepoint was taken: the transaction was already aborted.
          throw error;
        }
        throw new Error('rolled back to a savepoint taken after a failure');
      }
    });
    const error = await failed.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).kind).toBe(DriverErrorKind.UNIQUE_VIOLATION);
    expect(await storedProbe(database, 'enqueued-beside')).toBeUndefined();
  });

  it("keeps the events and the team a flush sent before a savepoint's mark noted, answered after it; drops those after", async () => {
    const owner = asOwnerId('alice');
    const members = [0, 1].map((i) => ({ name: `m${i}`, agentId: 'researcher' }));
    const team = await app.core.teams.create(owner, { clientRequestId: 't-mark', name: 'mark', goal: 'Test', members });
    const [member] = await app.core.teams.members([team.id]);
    const published: { events: TeamEvent[]; rows: CommittedRows | undefined }[] = [];
    const sink: EventSink = {
      published: (events, rows) => {
        published.push({ events: [...events], rows });
      },
    };
    // As the admission riding an enqueue does (`admission-ride.ts`), its admission failing.
    await runWrite({ ...ctx, sink }, NOW, async (scope) => {
      const held = heldOf(scope);
      await held.run('select 1', []);
      await scope.events.emit(team.id, TeamEventKind.TEAM_CHANGED);
      await scope.events.flush();
      const restore = scope.events.mark();
      held.defer(held.run('SAVEPOINT ride', []), () => undefined, true);
      await scope.events.emit(team.id, TeamEventKind.MEMBER_CHANGED, { memberId: member?.id ?? null });
      await scope.events.flush();
      expect(await held.firstFailure()).toBeUndefined();
      await held.run('ROLLBACK TO SAVEPOINT ride', []);
      restore();
    });
    expect(published).toHaveLength(1);
    const [{ events, rows } = { events: [], rows: undefined }] = published;
    expect(events.map((event) => event.kind)).toEqual([TeamEventKind.TEAM_CHANGED]);
    const stored = await app.store.findTeams([team.id]);
    // Noted as the first flush left it (revision and seq one past the creation's), not dropped with the second.
    expect(rows?.teams.get(team.id)?.revision).toBe(stored[0]?.revision);
  });

  it("refuse a job's step at a fence the row no longer has, and write it at the one it has", async () => {
    const owner = asOwnerId('alice');
    const members = [0, 1].map((i) => ({ name: `m${i}`, agentId: 'researcher' }));
    const team = await app.core.teams.create(owner, {
      clientRequestId: 't-fence',
      name: 'fence',
      goal: 'Test',
      members,
    });
    const [member] = await app.core.teams.members([team.id]);
    const [job] = await app.core.requests.send(owner, {
      teamId: team.id,
      memberIds: [String(member?.id)],
      text: 'Instant answer',
      clientRequestId: 'r-fence',
    });
    if (job === undefined) throw new Error('no job');
    expect(job.phase).toBe(JobPhase.QUEUED);
    const step = (fenceBefore: number) =>
      runWrite(ctx, NOW, async (scope) => {
        await heldOf(scope).run('select 1', []);
        const fence = await writeJobStep(
          scope.trx,
          'postgres',
          job.id,
          { updated_at: NOW },
          { to: 'srv_a', fenceBefore },
        );
        await insertProbe(scope, `after-step-${fenceBefore}`, 1, true);
        return fence;
      });
    await expect(step(4)).rejects.toThrow('the server refused a write: a job step found no row at its fence, rows: 0');
    expect(await storedProbe(database, 'after-step-4')).toBeUndefined();
    expect(await step(0)).toBe(1);
    const { rows } = await sql<{ lease_server: string; lease_fence: number }>`
      select lease_server, lease_fence from jobs where id = ${job.id}`.execute(database.db);
    expect(rows.map((row) => [row.lease_server, Number(row.lease_fence)])).toEqual([['srv_a', 1]]);
    expect(await storedProbe(database, 'after-step-0')).toBe(1);
  });
});
