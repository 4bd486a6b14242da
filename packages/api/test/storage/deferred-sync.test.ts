import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asOwnerId, DomainError } from '@agent-teams/core';
import { agentDefinition, DEMO_AGENTS } from '@agent-teams/testkit';
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

  it('runs a transaction that must be synced (it ended a job) again, synced, before anyone hears of it', async () => {
    const { opened, log, ctx } = await open();
    try {
      let attempts = 0;
      const result = await runWrite(
        ctx,
        'now',
        async (scope) => {
          attempts += 1;
          scope.requireSync();
          return attempts;
        },
        { deferSync: true },
      );
      expect(result).toBe(2);
      expect(log.lines).toEqual([
        'PRAGMA synchronous',
        'PRAGMA synchronous = NORMAL',
        'BEGIN IMMEDIATE',
        'ROLLBACK',
        'PRAGMA synchronous = FULL',
        'BEGIN IMMEDIATE',
        'COMMIT',
      ]);
      expect(await level(opened)).toBe(2);
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

/** The transactions of a statement log, each as its writes, marked by how its commit was made. */
function transactionsOf(lines: readonly string[]): string[] {
  const transactions: string[] = [];
  let current: string[] | null = null;
  let unsynced = false;
  for (const line of lines) {
    if (line === 'PRAGMA synchronous = NORMAL') unsynced = true;
    else if (line === 'PRAGMA synchronous = FULL') unsynced = false;
    else if (line === 'BEGIN IMMEDIATE') current = [];
    else if ((line === 'COMMIT' || line === 'ROLLBACK') && current !== null) {
      const how = line === 'ROLLBACK' ? 'rolled back' : unsynced ? 'unsynced' : 'synced';
      if (current.length > 0) transactions.push(`${how}: ${current.join(', ')}`);
      current = null;
    } else if (current !== null && /^(insert|update) /.test(line)) current.push(line);
  }
  return transactions;
}

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
      const transactions = transactionsOf(log.lines);
      const admission = transactions.filter((t) => t.startsWith('unsynced'));
      expect(admission).toHaveLength(1);
      expect(admission[0]).toMatch(
        /^unsynced: (update scheduler_state, )?update jobs, update jobs, update teams, insert team_events$/,
      );
      expect(transactions.some((t) => t.startsWith('synced') && t.includes('insert jobs'))).toBe(true);
      expect(transactions.at(-1)).toMatch(/^synced: update jobs/);
    } finally {
      await app.close();
    }
  });

  it('syncs an admission that ended a job (its agent is gone): nobody hears of an unsynced failure', async () => {
    const opened = await openDatabase(join(dir, 'gone.sqlite'));
    await migrateToLatest(opened.db, opened.dialect);
    const log = new StatementLog();
    const agents = [...DEMO_AGENTS];
    const catalog = {
      list: async () => agents.map((spec) => agentDefinition(spec)),
      get: async (id: string) => agents.map((spec) => agentDefinition(spec)).find((agent) => agent.id === id) ?? null,
    };
    const app = await openTestApp({ database: { ...opened, db: opened.db.withPlugin(log) }, catalog, start: false });
    try {
      const [job] = await sendAsOwner(app.core, asOwnerId('alice'), 2, 'Summarise the plan', 'gone');
      if (job === undefined) throw new Error('no job');
      // The agent leaves the catalog (a configuration reload) before the job is admitted.
      agents.splice(0, agents.length);
      log.lines.length = 0;
      await app.start();
      const failed = await eventually(async () => {
        const [found] = await app.core.load.jobs([job.id]);
        return found?.phase === 'FAILED' ? found : null;
      }, 'the request to fail');
      expect(failed.errorCode).toBe('AGENT_UNAVAILABLE');
      const transactions = transactionsOf(log.lines).filter((t) => t.includes('update jobs'));
      expect(transactions[0]).toMatch(/^rolled back: .*update jobs/);
      expect(transactions[1]).toMatch(/^synced: .*update jobs/);
      expect(transactions.filter((t) => t.startsWith('unsynced'))).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
