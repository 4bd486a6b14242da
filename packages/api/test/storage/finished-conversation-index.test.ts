// Migration 0018 (decision 0247): a member's status names how its conversation's last finished job
// ended, and that job is now one seek of `jobs_finished_conversation_idx` instead of a scan of
// every job of the database. The index is built from the jobs already there, the reads give what
// the window they replace gave, and neither database plans a scan of `jobs` for them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asConversationId, JobPhase } from '@agent-teams/core';
import { type Kysely, Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { ID_LIST_PLANNED } from '../../src/storage/compiled-statement.js';
import type { Database } from '../../src/storage/database-types.js';
import { lastFinishedPhases } from '../../src/storage/job-reads.js';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';
import { historyIndexesMigration } from '../../src/storage/migrations/0018-history-indexes.js';
import { StaticMigrationProvider } from '../../src/storage/migrations/index.js';
import { type DatabaseDialect, openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres } from '../support/fresh-postgres.js';
import { indexNames, postgresGenericPlans, sqlitePlan } from '../support/index-plans.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-finished-conversation-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const at = (minute: number) => `2026-12-06T08:${String(minute).padStart(2, '0')}:00.000Z`;

/**
 * Jobs as a database at migration 0017 held them: [id, conversation, phase, updated minute]. In
 * `c1` the older job finished last; in `c2` two finished in the same minute (the higher seq wins)
 * and one is still running; `c3` has only unfinished work; `c4` (数据 😀) one finished job.
 */
const SEEDED: readonly (readonly [string, string, JobPhase, number])[] = [
  ['job_1', 'c1', JobPhase.FAILED, 9],
  ['job_2', 'c1', JobPhase.CANCELLED, 5],
  ['job_3', 'c2', JobPhase.COMPLETED, 7],
  ['job_4', 'c2', JobPhase.FAILED, 7],
  ['job_5', 'c2', JobPhase.RUNNING, 8],
  ['job_6', 'c3', JobPhase.QUEUED, 1],
  ['job_7', 'c4 数据 😀', JobPhase.COMPLETED, 2],
];

async function seedBefore(db: Kysely<Database>): Promise<void> {
  await sql`insert into teams (id, owner, client_request_id, fingerprint, name, goal, status, revision, last_event_seq, created_at, updated_at)
    values ('team_1', 'owner_1', 'create-1', 'f', 'T', 'g', 'READY', 1, 0, ${at(0)}, ${at(0)})`.execute(db);
  for (const [id, conversation, phase, minute] of SEEDED) {
    const unfinished = phase === JobPhase.RUNNING || phase === JobPhase.QUEUED ? 1 : 0;
    await sql`insert into jobs (id, team_id, owner, kind, phase, unfinished, conversation_id, requester_key, root_id,
        client_key, text, created_at, updated_at)
      values (${id}, 'team_1', 'owner_1', 'REQUEST', ${phase}, ${unfinished}, ${conversation}, '', ${id}, ${id},
        'Do it', ${at(0)}, ${at(minute)})`.execute(db);
  }
}

/** Migrates a 0017 database with finished jobs, then reads each conversation's state through the index. */
async function checkMigration(db: Kysely<Database>, dialect: DatabaseDialect): Promise<void> {
  const migrator = new Migrator({ db, provider: new StaticMigrationProvider(dialect) });
  expect((await migrator.migrateTo('0017-cached-input-tokens')).error).toBeUndefined();
  await seedBefore(db);
  expect(await indexNames(db, dialect, 'jobs')).not.toContain('jobs_finished_conversation_idx');
  const migrated = await migrator.migrateTo('0018-history-indexes');
  expect(migrated.error).toBeUndefined();
  const after = await indexNames(db, dialect, 'jobs');
  expect(after).toContain('jobs_finished_conversation_idx');
  // A team's deletion finds its deliveries and member run tokens by index too.
  expect(await indexNames(db, dialect, 'team_message_deliveries')).toContain('team_message_deliveries_team_idx');
  expect(await indexNames(db, dialect, 'member_run_tokens')).toContain('member_run_tokens_team_idx');

  const store = new KyselyTeamStore(db, dialect);
  const ids = ['c1', 'c2', 'c3', 'c4 数据 😀', 'c5'].map(asConversationId);
  const states = await store.conversationStates(ids);
  expect(ids.map((id) => states.get(id))).toEqual([
    { head: null, lastFinished: JobPhase.FAILED },
    { head: JobPhase.RUNNING, lastFinished: JobPhase.FAILED },
    { head: JobPhase.QUEUED, lastFinished: null },
    { head: null, lastFinished: JobPhase.COMPLETED },
    { head: null, lastFinished: null },
  ]);
  expect(await store.conversationStates([])).toEqual(new Map());
  // Read in chunks of ID_LIST_PLANNED (one column per conversation, which both databases bound):
  // the seeded ones at a chunk's n − 1, n and n + 1 and at the end of 2,000, between unknown ones.
  for (const count of [ID_LIST_PLANNED - 1, ID_LIST_PLANNED, ID_LIST_PLANNED + 1, 2_000]) {
    const many = Array.from({ length: count }, (_, i) => asConversationId(`unknown_${i}`));
    // Each position once (count − 1 may be one of the others), the seeded id of the same index there.
    const at = [0, ID_LIST_PLANNED - 2, ID_LIST_PLANNED - 1, ID_LIST_PLANNED, count - 1]
      .map((position, i) => [position, ids[i] as (typeof ids)[number]] as const)
      .filter(([position], i, all) => position < count && all.findIndex(([p]) => p === position) === i);
    for (const [position, id] of at) many[position] = id;
    const read = await store.conversationStates(many);
    expect(read.size, `${count} conversations`).toBe(new Set(many).size);
    for (const [position, id] of at) expect(read.get(many[position] as (typeof many)[number])).toEqual(states.get(id));
    expect(read.get(asConversationId('unknown_1'))).toEqual(count > 1 ? { head: null, lastFinished: null } : undefined);
  }

  // Run again (a crash before the migration's record): nothing changes.
  await historyIndexesMigration().up(db);
  expect(await indexNames(db, dialect, 'jobs')).toEqual(after);
}

describe('migration 0018 (decision 0247): the last finished job of a conversation is one seek', () => {
  it('SQLite: built from the jobs there, idempotent, read without a scan of jobs', async () => {
    const opened = await openDatabase(join(dir, 'migrate.sqlite'));
    try {
      await checkMigration(opened.db, opened.dialect);
      const detail = await sqlitePlan(opened.db, lastFinishedPhases(opened.db, ['c1', 'c2', 'c3']).compile());
      expect(
        detail.match(/SEARCH jobs USING INDEX jobs_finished_conversation_idx \(conversation_id=\?\)/g),
      ).toHaveLength(3);
      expect(detail).not.toMatch(/SCAN jobs|TEMP B-TREE/);
    } finally {
      await opened.close();
    }
  });

  it('PostgreSQL: the same, and the generic plan reads the partial index backwards', async () => {
    const database = await createFreshPostgres('finished_conversation_index', { migrate: false });
    const opened = await openDatabase(database.url);
    try {
      await checkMigration(opened.db, opened.dialect);
      await postgresGenericPlans(opened.db, async (explain) => {
        const text = await explain('last_finished', lastFinishedPhases(opened.db, ['c1', 'c2']).compile());
        expect(text).toMatch(/Index Scan Backward using jobs_finished_conversation_idx/);
        expect(text).not.toMatch(/Seq Scan/);
      });
    } finally {
      await opened.close();
      await database.drop();
    }
  });
});
