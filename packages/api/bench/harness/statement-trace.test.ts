import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { recordStatements, replayStatements } from './statement-trace.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-trace-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A closed database file with one table whose `k` is unique. */
function freshFile(name: string): string {
  const file = join(dir, name);
  const db = new BetterSqlite3(file);
  db.exec('create table t (id integer primary key autoincrement, k text unique, v text)');
  db.close();
  return file;
}

const rows = (file: string) => {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return db.prepare('select id, k, v from t order by id').all();
  } finally {
    db.close();
  }
};

/** Records writes (one failing on the unique key) and reads on `file`; the mark after the first commit. */
function recordOn(file: string) {
  const recorder = recordStatements();
  const db = new BetterSqlite3(file);
  let from = 0;
  try {
    db.pragma('journal_mode = WAL');
    const insert = db.prepare('insert into t (k, v) values (?, ?)');
    db.prepare('begin immediate').run();
    insert.run('a', '1');
    db.prepare('commit').run();
    from = recorder.mark();
    db.exec('begin immediate');
    insert.run(['b', '2']);
    expect(() => insert.run('a', 'again')).toThrow(/UNIQUE/);
    db.prepare('update t set v = ? where k = ?').run('3', 'b');
    db.exec('commit');
    expect(db.prepare('select count(*) as n from t').get()).toEqual({ n: 2 });
  } finally {
    db.close();
  }
  return { trace: recorder.stop(), from };
}

describe('statement traces (engine-floor)', () => {
  it('records every call with its values and outcome, and replays it to the same rows', async () => {
    const file = freshFile('recorded.sqlite');
    const copy = join(dir, 'replayed.sqlite');
    copyFileSync(file, copy);
    const { trace, from } = recordOn(file);
    const failed = trace.filter((call) => call.threw);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ sql: 'insert into t (k, v) values (?, ?)', args: ['a', 'again'] });
    expect(trace.find((call) => call.args.length === 1)?.args).toEqual([['b', '2']]);
    expect(new Set(trace.map((call) => call.file))).toEqual(new Set([file]));
    expect(trace.some((call) => call.method === 'exec' && call.sql === 'commit')).toBe(true);

    const replay = await replayStatements(copy, trace, from, true);
    expect(replay.statements).toBe(trace.length - from);
    expect(rows(copy)).toEqual(rows(file));
    expect(rows(copy)).toEqual([
      { id: 1, k: 'a', v: '1' },
      { id: 2, k: 'b', v: '3' },
    ]);
    // The timed part's statements, by text: the first transaction, before the mark, is not in it.
    expect(replay.times?.get('update t set v = ? where k = ?')?.calls).toBe(1);
    expect(replay.times?.get('begin immediate')?.calls).toBe(1);
    expect(replay.times?.has('PRAGMA journal_mode = WAL')).toBe(false);
  });

  it('stops recording when stopped', () => {
    const recorder = recordStatements();
    const db = new BetterSqlite3(':memory:');
    db.prepare('select 1').get();
    const trace = recorder.stop();
    db.prepare('select 2').get();
    db.exec('select 3');
    db.close();
    expect(trace.map((call) => call.sql)).toEqual(['select 1']);
  });

  it('fails when a replayed call turns out otherwise than it did', async () => {
    const file = freshFile('diverging.sqlite');
    const copy = join(dir, 'diverging-copy.sqlite');
    copyFileSync(file, copy);
    const { trace } = recordOn(file);
    await replayStatements(copy, trace, 0);
    // Replayed twice, the first insert now hits the unique key it did not hit when recorded.
    await expect(replayStatements(copy, trace, 0)).rejects.toThrow(/diverged at: insert into t/);
  });
});
