import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { CommitCounter } from '../support/commit-counter.js';
import { openTestApp } from '../support/test-app.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-exclusive-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a server alone on its SQLite file', () => {
  it('claims in a write transaction once, then only reads what it holds', async () => {
    const opened = await openDatabase(join(dir, 'teams.sqlite'));
    await migrateToLatest(opened.db, opened.dialect);
    const counter = new CommitCounter();
    const app = await openTestApp({
      database: { ...opened, db: opened.db.withPlugin(counter) },
      // No heartbeat (a lease renewal is a commit) while the passes are counted.
      lease: { heartbeatMs: 600_000, ttlMs: 1_200_000 },
    });
    try {
      const scheduler = app.scheduler;
      if (scheduler === null) throw new Error('no scheduler');
      await scheduler.idle();
      const afterStart = counter.commits;
      // Each nudge is a pass that claims (another server's change would ask for one).
      for (let pass = 0; pass < 5; pass += 1) {
        scheduler.nudge();
        await scheduler.idle();
      }
      expect(counter.commits - afterStart).toBe(0);
    } finally {
      await app.close();
    }
  });
});
