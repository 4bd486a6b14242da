import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asOwnerId, EMPTY_ROUND } from '@agent-teams/core';
import { StaticCatalog } from '@agent-teams/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/create-app.js';
import { admissionMayChange } from '../../src/storage/admission.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { sendAsOwner } from '../scheduler/owner-requests.js';
import { createFreshPostgres } from '../support/fresh-postgres.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-may-change-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NOW = '2026-12-03T12:00:00.000Z';

/** Each answer of the one-statement check, on each engine (EXISTS is 0/1 on SQLite, boolean on PostgreSQL). */
async function checkEveryAnswer(target: string): Promise<void> {
  const opened = await openDatabase(target);
  await migrateToLatest(opened.db, opened.dialect);
  const app = await createApp({ database: opened, catalog: new StaticCatalog(), scheduler: false });
  try {
    const db = opened.db;
    // Nothing queued, no round stored yet.
    expect(await admissionMayChange(db, NOW)).toBe(false);
    const [job] = await sendAsOwner(app.core, asOwnerId('alice'), 2, 'Plan the launch', 'may-change');
    if (job === undefined) throw new Error('no job');
    expect(await admissionMayChange(db, NOW)).toBe(true);
    // Not queued any more (as if admitted); no round stored, then an empty one: nothing to change.
    await db.updateTable('jobs').set({ phase: 'RUNNING' }).where('team_id', '=', job.teamId).execute();
    await db.deleteFrom('scheduler_state').execute();
    expect(await admissionMayChange(db, NOW)).toBe(false);
    await db
      .insertInto('scheduler_state')
      .values({ id: 1, round_json: JSON.stringify(EMPTY_ROUND), updated_at: NOW })
      .execute();
    expect(await admissionMayChange(db, NOW)).toBe(false);
    // A round that still names an owner: the next pass empties it.
    await db
      .updateTable('scheduler_state')
      .set({ round_json: JSON.stringify({ ...EMPTY_ROUND, served: ['alice'] }) })
      .execute();
    expect(await admissionMayChange(db, NOW)).toBe(true);
    await db
      .updateTable('scheduler_state')
      .set({ round_json: JSON.stringify(EMPTY_ROUND) })
      .execute();
    // A waiting job whose deadline passed is woken; one whose deadline is ahead (and no event since) is not.
    for (const [deadline, woken] of [
      ['2026-12-03T13:00:00.000Z', false],
      ['2026-12-03T11:00:00.000Z', true],
    ] as const) {
      await db
        .updateTable('jobs')
        .set({ phase: 'WAITING_CHANGE', wait_after_seq: 1_000_000, wait_deadline: deadline })
        .where('id', '=', job.id)
        .execute();
      expect(await admissionMayChange(db, NOW)).toBe(woken);
    }
  } finally {
    await app.close();
    await opened.close();
  }
}

describe('admissionMayChange: one statement for the idle check', () => {
  it('answers each case on a SQLite file', async () => {
    await checkEveryAnswer(join(dir, 'may-change.sqlite'));
  });

  it('answers each case on PostgreSQL', async () => {
    const database = await createFreshPostgres('may_change');
    try {
      await checkEveryAnswer(database.url);
    } finally {
      await database.drop();
    }
  });
});
