import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asOwnerId, DomainError } from '@agent-teams/core';
import { type KyselyPlugin, type RootOperationNode, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { openDatabase, type SqliteSynchronous } from '../../src/storage/open-database.js';
import { runWrite } from '../../src/storage/write-transaction.js';
import { sendAsOwner } from '../scheduler/owner-requests.js';
import { eventually, openTestApp } from '../support/test-app.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-deferred-sync-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Records the raw statements (transaction control and pragmas) and the tables each write names. */
class StatementLog implements KyselyPlugin {
  readonly lines: string[] = [];
  transformQuery(args: { node: RootOperationNode }): RootOperationNode {
    const { node } = args;
    if (node.kind === 'RawNode') this.lines.push(node.sqlFragments.join('?').trim());
    else if (node.kind === 'UpdateQueryNode')
      this.lines.push(`update ${JSON.stringify(node.table).match(/"name":"(\w+)"/)?.[1]}`);
    else if (node.kind === 'InsertQueryNode') this.lines.push(`insert ${node.into?.table.identifier.name}`);
    return node;
  }
  async transformResult<R>(args: { result: R }): Promise<R> {
    return args.result;
  }
}

let files = 0;
async function open(mode?: SqliteSynchronous) {
  files += 1;
  const opened = await openDatabase(join(dir, `deferred-${files}.sqlite`), mode ? { sqliteSynchronous: mode } : {});
  await migrateToLatest(opened.db, opened.dialect);
  const log = new StatementLog();
  return { opened, log, ctx: { db: opened.db.withPlugin(log), dialect: opened.dialect, sink: null, ids: null } };
}
const level = async (opened: Awaited<ReturnType<typeof open>>['opened']) =>
  Number((await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(opened.db)).rows[0]?.synchronous);

describe('a write with deferSync on a SQLite file synced in every COMMIT', () => {
  it('commits at synchronous=NORMAL, set before BEGIN and FULL again after COMMIT', async () => {
    const { opened, log, ctx } = await open();
    try {
      expect(await level(opened)).toBe(2);
      await runWrite(ctx, 'now', (scope) => scope.trx.selectFrom('teams').select('id').execute(), { deferSync: true });
      expect(log.lines).toEqual([
        'PRAGMA synchronous',
        'PRAGMA synchronous = NORMAL',
        'BEGIN IMMEDIATE',
        'COMMIT',
        'PRAGMA synchronous = FULL',
      ]);
      expect(await level(opened)).toBe(2);
      // The level is read once per handle.
      log.lines.length = 0;
      await runWrite(ctx, 'now', async () => undefined, { deferSync: true });
      expect(log.lines[0]).toBe('PRAGMA synchronous = NORMAL');
    } finally {
      await opened.close();
    }
  });

  it('is synced in every COMMIT again after a rolled-back one', async () => {
    const { opened, log, ctx } = await open();
    try {
      const refused = runWrite(
        ctx,
        'now',
        async () => {
          throw new DomainError('NOT_FOUND', 'No such team.');
        },
        { deferSync: true },
      );
      await expect(refused).rejects.toThrow(DomainError);
      expect(log.lines.slice(-3)).toEqual(['BEGIN IMMEDIATE', 'ROLLBACK', 'PRAGMA synchronous = FULL']);
      expect(await level(opened)).toBe(2);
      log.lines.length = 0;
      await runWrite(ctx, 'now', async () => undefined);
      expect(log.lines).toEqual(['BEGIN IMMEDIATE', 'COMMIT']);
    } finally {
      await opened.close();
    }
  });

  it.each(['normal', 'group'] as const)(
    'changes nothing on a file opened with --sqlite-synchronous %s',
    async (mode) => {
      const { opened, log, ctx } = await open(mode);
      try {
        await runWrite(ctx, 'now', async () => undefined, { deferSync: true });
        expect(log.lines).toEqual(['PRAGMA synchronous', 'BEGIN IMMEDIATE', 'COMMIT']);
        expect(await level(opened)).toBe(1);
      } finally {
        await opened.close();
      }
    },
  );
});

describe('the scheduler on a SQLite file synced in every COMMIT', () => {
  it('commits only its admission unsynced: the enqueue and the completion are synced', async () => {
    const opened = await openDatabase(join(dir, 'app.sqlite'));
    await migrateToLatest(opened.db, opened.dialect);
    const log = new StatementLog();
    const app = await openTestApp({ database: { ...opened, db: opened.db.withPlugin(log) } });
    try {
      await app.scheduler?.idle();
      const [job] = await sendAsOwner(app.core, asOwnerId('alice'), 2, 'Summarise the plan', 'deferred');
      if (job === undefined) throw new Error('no job');
      await eventually(async () => {
        const [found] = await app.core.load.jobs([job.id]);
        return found?.phase === 'COMPLETED' ? found : null;
      }, 'the request to complete');
      // Each transaction as the writes it made, marked when its commit was not synced.
      const transactions: string[] = [];
      let current: string[] | null = null;
      let unsynced = false;
      for (const line of log.lines) {
        if (line === 'PRAGMA synchronous = NORMAL') unsynced = true;
        else if (line === 'BEGIN IMMEDIATE') current = [];
        else if (line === 'COMMIT' && current !== null) {
          if (current.length > 0) transactions.push(`${unsynced ? 'unsynced' : 'synced'}: ${current.join(', ')}`);
          current = null;
        } else if (line === 'PRAGMA synchronous = FULL') unsynced = false;
        else if (current !== null && /^(insert|update) /.test(line)) current.push(line);
      }
      const admission = transactions.filter((t) => t.startsWith('unsynced'));
      expect(admission).toHaveLength(1);
      expect(admission[0]).toMatch(/^unsynced: (update scheduler_state, )?update jobs, update jobs, update teams, insert team_events$/);
      expect(transactions.some((t) => t.startsWith('synced') && t.includes('insert jobs'))).toBe(true);
      expect(transactions.at(-1)).toMatch(/^synced: update jobs/);
    } finally {
      await app.close();
    }
  });
});
