import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asJobId, asOwnerId, TeamEventKind, type TeamId } from '@agent-teams/core';
import { afterAll, describe, expect, it } from 'vitest';
import { KEEP_EVENTS, KEEP_EVENTS_MS, PRUNE_EVERY } from '../../src/storage/event-retention.js';
import type { OpenedDatabase } from '../../src/storage/open-database.js';
import { runWrite, type StoreContext } from '../../src/storage/write-transaction.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';
import { openTestApp } from '../support/test-app.js';

// A team's event log keeps its newest KEEP_EVENTS events and a day of them, pruned when its seq
// passes a multiple of PRUNE_EVERY: on SQLite by a statement of its own, on PostgreSQL inside the
// flush's one statement (`pg-event-flush.ts`), where whether to prune is decided by the server.

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function openEngine(engine: 'sqlite' | 'postgres'): Promise<string> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'event-retention-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    return join(dir, 'teams.sqlite');
  }
  const fresh: FreshPostgres = await createFreshPostgres('agent_teams_event_retention');
  cleanups.push(() => fresh.drop());
  return fresh.url;
}

async function seqsOf(database: OpenedDatabase, teamId: TeamId): Promise<number[]> {
  const rows = await database.db
    .selectFrom('team_events')
    .select('seq')
    .where('team_id', '=', teamId)
    .orderBy('seq')
    .execute();
  return rows.map((row) => Number(row.seq));
}

describe.each(['sqlite', 'postgres'] as const)('a team event log on %s', (engine) => {
  it(`keeps its newest ${KEEP_EVENTS} and a day of events, pruned only where the seq passes a multiple of ${PRUNE_EVERY}`, async () => {
    const location = await openEngine(engine);
    const app = await openTestApp({ database: location, start: false });
    cleanups.push(() => app.close());
    const { database } = app;
    if (database === null) throw new Error('the application opened no database');
    const owner = asOwnerId('alice');
    const members = [0, 1].map((i) => ({ name: `m${i}`, agentId: 'researcher' }));
    const team = await app.core.teams.create(owner, { clientRequestId: 't', name: 'log', goal: 'Test', members });
    const ctx: StoreContext = { db: database.db, dialect: database.dialect, sink: null, ids: null };
    // Just after the team's creation, whose events these writes' retention then keeps.
    const day0 = Date.now() + 1_000;
    const at = (ms: number) => new Date(ms).toISOString();
    // Old enough by the next writes' clock, but too few to prune: nothing goes.
    await runWrite(ctx, at(day0), async (scope) => {
      for (let i = 0; i < KEEP_EVENTS + 100; i += 1) {
        await scope.events.emit(team.id, TeamEventKind.JOB_CHANGED, { jobId: asJobId(`old-${i}`) });
      }
    });
    const before = await seqsOf(database, team.id);
    expect(before[0]).toBe(1);
    // A day later, one event per write: each write passing a multiple prunes what is beyond the
    // newest KEEP_EVENTS and older than a day, and no other write deletes anything.
    const later = day0 + KEEP_EVENTS_MS + 60_000;
    const last = (before.at(-1) as number) + PRUNE_EVERY + 5;
    for (let seq = (before.at(-1) as number) + 1; seq <= last; seq += 1) {
      await runWrite(ctx, at(later), (scope) =>
        scope.events.emit(team.id, TeamEventKind.JOB_CHANGED, { jobId: asJobId(`new-${seq}`) }),
      );
      const seqs = await seqsOf(database, team.id);
      expect(seqs.at(-1)).toBe(seq);
      const passed = Math.floor(seq / PRUNE_EVERY) * PRUNE_EVERY;
      // The newest multiple passed at or before this seq, by a write of a day later: pruned there.
      const prunedAt = passed > (before.at(-1) as number) ? passed : null;
      expect(seqs[0]).toBe(prunedAt === null ? 1 : prunedAt - KEEP_EVENTS + 1);
      expect(seqs).toHaveLength(seq - (seqs[0] as number) + 1);
    }
    // Younger than a day: kept though beyond the newest KEEP_EVENTS; every older one beyond them goes.
    await runWrite(ctx, at(later), async (scope) => {
      for (let i = 0; i < KEEP_EVENTS + PRUNE_EVERY; i += 1) {
        await scope.events.emit(team.id, TeamEventKind.JOB_CHANGED, { jobId: asJobId(`young-${i}`) });
      }
    });
    const young = await seqsOf(database, team.id);
    expect(young[0]).toBe((before.at(-1) as number) + 1);
    expect(young).toHaveLength(PRUNE_EVERY + 5 + KEEP_EVENTS + PRUNE_EVERY);
  });
});
