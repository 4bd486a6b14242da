import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isEnvironmentError } from './driver-errors.js';

/** What `fn` threw. */
async function thrown(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('isEnvironmentError', () => {
  it('tells a refused SQLite statement from a database that cannot write', async () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (x INTEGER UNIQUE)');
    db.exec("CREATE TRIGGER no_twos BEFORE INSERT ON t WHEN NEW.x = 2 BEGIN SELECT RAISE(ABORT, 'no'); END");
    db.prepare('INSERT INTO t VALUES (1)').run();
    const unique = await thrown(() => db.prepare('INSERT INTO t VALUES (1)').run());
    const trigger = await thrown(() => db.prepare('INSERT INTO t VALUES (2)').run());
    const readonly = await thrown(() => {
      db.pragma('query_only = ON');
      db.prepare('INSERT INTO t VALUES (3)').run();
    });
    db.close();
    expect(isEnvironmentError(unique, 'sqlite')).toBe(false);
    expect(isEnvironmentError(trigger, 'sqlite')).toBe(false);
    expect((readonly as { code?: string }).code).toBe('SQLITE_READONLY');
    expect(isEnvironmentError(readonly, 'sqlite')).toBe(true);
    for (const code of ['SQLITE_IOERR_WRITE', 'SQLITE_FULL', 'SQLITE_CORRUPT', 'SQLITE_NOMEM']) {
      expect(isEnvironmentError({ code }, 'sqlite')).toBe(true);
    }
  });

  it('tells a refused PostgreSQL statement from a server that is gone', async () => {
    const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
    await client.connect();
    const raised = await thrown(() => client.query("DO $$ BEGIN RAISE EXCEPTION 'no'; END $$"));
    const badColumn = await thrown(() => client.query('SELECT no_such_column FROM pg_class'));
    await client.end();
    expect(isEnvironmentError(raised, 'postgres')).toBe(false);
    expect(isEnvironmentError(badColumn, 'postgres')).toBe(false);
    // Port 1 on the loopback: nothing listens, the socket is refused.
    const refused = await thrown(() => new pg.Client({ host: '127.0.0.1', port: 1 }).connect());
    expect((refused as { code?: string }).code).toBe('ECONNREFUSED');
    expect(isEnvironmentError(refused, 'postgres')).toBe(true);
    for (const code of ['08006', '53100', '57P01', '58030', 'XX000']) {
      expect(isEnvironmentError({ code }, 'postgres')).toBe(true);
    }
  });

  it('counts a failure without a code as the statement’s own (a bug, a refused value)', () => {
    expect(isEnvironmentError(new TypeError('x is undefined'), 'sqlite')).toBe(false);
    expect(isEnvironmentError({ code: 'ERR_INVALID_ARG_TYPE' }, 'postgres')).toBe(false);
    expect(isEnvironmentError(null, 'postgres')).toBe(false);
    expect(isEnvironmentError('text', 'sqlite')).toBe(false);
  });
});
