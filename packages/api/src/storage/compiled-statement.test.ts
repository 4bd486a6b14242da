import BetterSqlite3 from 'better-sqlite3';
import { Kysely, type LogEvent, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { CompiledListStatement, CompiledShapes, CompiledStatement, ID_LIST_PLANNED } from './compiled-statement.js';
import type { Database } from './database-types.js';
import { migrateToLatest } from './migrate.js';

/** A migrated in-memory SQLite database whose executed statements are logged (no plugin). */
async function sqlite() {
  const log: { sql: string; parameters: readonly unknown[] }[] = [];
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }),
    log: (event: LogEvent) => {
      if (event.level === 'query') log.push({ sql: event.query.sql, parameters: event.query.parameters });
    },
  });
  await migrateToLatest(db, 'sqlite');
  await db
    .insertInto('teams')
    .values({
      id: 't1',
      owner: 'o',
      client_request_id: 'r',
      fingerprint: 'f',
      name: 'n',
      goal: 'g',
      status: 'READY',
      revision: 1,
      last_event_seq: 0,
      created_at: 'c',
      updated_at: 'c',
    })
    .execute();
  log.length = 0;
  return { db, log };
}

const opened: Kysely<Database>[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) await db.destroy();
});

/** Texts a value may hold: ASCII, CJK, emoji, a lone surrogate (written as U+FFFD by SQLite). */
const TEXTS = ['plain', '漢字かな', '👩‍🚀🚀', 'lone \ud800 surrogate'];

describe('CompiledStatement', () => {
  it('runs the SQL and values Kysely would build, compiling once, for every kind of value', async () => {
    const { db, log } = await sqlite();
    opened.push(db);
    let builds = 0;
    const byName = new CompiledStatement(2, (target, name: string, owner: string | null) => {
      builds += 1;
      return target.selectFrom('teams').select(['id', 'name']).where('name', '=', name).where('owner', '=', owner);
    });
    for (const text of TEXTS) {
      await db.updateTable('teams').set({ name: text }).where('id', '=', 't1').execute();
      const direct = db.selectFrom('teams').select(['id', 'name']).where('name', '=', text).where('owner', '=', 'o');
      const expected = await direct.execute();
      expect(expected).toHaveLength(1);
      log.length = 0;
      expect(await byName.rows(db, text, 'o')).toEqual(expected);
      expect(log).toEqual([{ sql: direct.compile().sql, parameters: [text, 'o'] }]);
    }
    expect(await byName.rows(db, 'plain', null)).toEqual([]);
    expect(builds).toBe(1);
  });

  it('puts a value used twice in both places, and keeps constants of the statement', async () => {
    const { db, log } = await sqlite();
    opened.push(db);
    const twice = new CompiledStatement(1, (target, id: string) =>
      target
        .selectFrom('teams')
        .select('id')
        .where('id', '=', id)
        .where('id', 'in', (eb) => eb.selectFrom('teams').select('id').where('id', '=', id).limit(3)),
    );
    expect(await twice.rows(db, 't1')).toEqual([{ id: 't1' }]);
    expect(await twice.rows(db, 't2')).toEqual([]);
    expect(log.at(-1)?.parameters).toEqual(['t2', 't2', 3]);
  });

  it('builds each time a statement whose shape depends on its values (a value inlined into the SQL)', async () => {
    const { db } = await sqlite();
    opened.push(db);
    let builds = 0;
    const inlined = new CompiledStatement(1, (target, id: string) => {
      builds += 1;
      return target.selectFrom('teams').select('id').where('id', '=', sql.lit(id));
    });
    expect(await inlined.rows(db, 't1')).toEqual([{ id: 't1' }]);
    expect(await inlined.rows(db, 't2')).toEqual([]);
    // One build for the plan (refused), then one per run.
    expect(builds).toBe(3);
  });

  it('builds a run with an undefined value as Kysely would (the column left out)', async () => {
    const { db, log } = await sqlite();
    opened.push(db);
    const rename = new CompiledStatement(2, (target, id: string, name: string | undefined) =>
      target.updateTable('teams').set({ name, updated_at: 'u' }).where('id', '=', id),
    );
    await rename.execute(db, 't1', 'renamed');
    await rename.execute(db, 't1', undefined);
    expect(log.at(-1)?.sql).not.toContain('"name"');
    expect(await db.selectFrom('teams').select('name').executeTakeFirst()).toEqual({ name: 'renamed' });
  });

  it('plans each database by its own dialect (PostgreSQL numbers its placeholders)', async () => {
    // A PostgreSQL pool that records what its client is sent, so no server is needed.
    const sent: { sql: string; parameters: readonly unknown[] }[] = [];
    const client = {
      query: async (text: string, parameters: readonly unknown[]) => {
        sent.push({ sql: text, parameters });
        return { command: 'SELECT', rowCount: 0, rows: [] };
      },
      release: () => {},
    };
    const postgres = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: { connect: async () => client, end: async () => {} } as never }),
    });
    const { db, log } = await sqlite();
    opened.push(db, postgres);
    const statement = new CompiledStatement(1, (target, id: string) =>
      target.selectFrom('teams').select('id').where('id', '=', id),
    );
    const other = new CompiledStatement(1, (target, id: string) =>
      target.selectFrom('members').select('id').where('id', '=', id),
    );
    // Planned on SQLite first, then run on PostgreSQL; the other one the other way round.
    expect(await statement.rows(db, 't1')).toEqual([{ id: 't1' }]);
    await statement.rows(postgres, 't2');
    await other.rows(postgres, 'm1');
    await other.rows(db, 'm2');
    expect(log.map((entry) => entry.sql)).toEqual([
      'select "id" from "teams" where "id" = ?',
      'select "id" from "members" where "id" = ?',
    ]);
    expect(sent).toEqual([
      { sql: 'select "id" from "teams" where "id" = $1', parameters: ['t2'] },
      { sql: 'select "id" from "members" where "id" = $1', parameters: ['m1'] },
    ]);
  });

  it('builds each time a statement that drops a value or changes one', async () => {
    const { db, log } = await sqlite();
    opened.push(db);
    let builds = 0;
    const dropped = new CompiledStatement(2, (target, id: string, _unused: string) => {
      builds += 1;
      return target.selectFrom('teams').select('id').where('id', '=', id);
    });
    expect(await dropped.rows(db, 't1', 'x')).toEqual([{ id: 't1' }]);
    expect(await dropped.rows(db, 't2', 'y')).toEqual([]);
    expect(builds).toBe(3);
    const changed = new CompiledStatement(1, (target, name: string) =>
      target.selectFrom('teams').select('id').where('name', '=', name).where('goal', '=', name.toLowerCase()),
    );
    await db.updateTable('teams').set({ name: 'Ab', goal: 'ab' }).where('id', '=', 't1').execute();
    expect(await changed.rows(db, 'Ab')).toEqual([{ id: 't1' }]);
    expect(log.at(-1)?.parameters).toEqual(['Ab', 'ab']);
  });
});

describe('CompiledListStatement', () => {
  it('reads lists of 1 and of the planned maximum through plans, and a longer list by building it', async () => {
    const { db, log } = await sqlite();
    opened.push(db);
    const ids = Array.from({ length: ID_LIST_PLANNED + 1 }, (_, i) => (i === 0 ? 't1' : `missing-${i}`));
    let builds = 0;
    const byId = new CompiledListStatement(ID_LIST_PLANNED, (target, list) => {
      builds += 1;
      return target.selectFrom('teams').select('id').where('id', 'in', list);
    });
    for (const length of [1, ID_LIST_PLANNED, ID_LIST_PLANNED + 1]) {
      expect(await byId.rows(db, ids.slice(0, length))).toEqual([{ id: 't1' }]);
      expect(await byId.rows(db, ids.slice(0, length))).toEqual([{ id: 't1' }]);
      expect(log.at(-1)?.parameters).toEqual(ids.slice(0, length));
    }
    // Two plans (lengths 1 and the maximum), then two builds of the longer list.
    expect(builds).toBe(4);
  });
});

describe('CompiledShapes', () => {
  it('plans one statement per shape key, up to its bound, and builds every shape past it', async () => {
    const { db, log } = await sqlite();
    opened.push(db);
    const shapes = new CompiledShapes<never>(2);
    let builds = 0;
    // The shape: which columns the update names (as a job step's changed columns).
    const update = (columns: readonly ('name' | 'goal' | 'status')[], values: readonly string[]) =>
      shapes.execute(
        db,
        columns.join(','),
        (target, marks) => {
          builds += 1;
          const set = Object.fromEntries(columns.map((column, i) => [column, marks[i]]));
          return target
            .updateTable('teams')
            .set(set)
            .where('id', '=', marks[columns.length] as string) as never;
        },
        [...values, 't1'],
      );
    for (const text of TEXTS) {
      const result = await update(['name', 'goal'], [text, `goal ${text}`]);
      expect(Number(result.numAffectedRows)).toBe(1);
      expect(log.at(-1)?.parameters).toEqual([text, `goal ${text}`, 't1']);
      const stored = await db.selectFrom('teams').select(['name', 'goal']).executeTakeFirst();
      // What the same update built by Kysely stores (SQLite's own take on a lone surrogate).
      await db
        .updateTable('teams')
        .set({ name: text, goal: `goal ${text}` })
        .where('id', '=', 't1')
        .execute();
      expect(stored).toEqual(await db.selectFrom('teams').select(['name', 'goal']).executeTakeFirst());
    }
    await update(['status'], ['CLOSED']);
    await update(['status'], ['READY']);
    // Two shapes planned (one build each); the bound is reached, so a third shape builds each time.
    expect(builds).toBe(2);
    expect(shapes.size).toBe(2);
    await update(['goal'], ['third']);
    await update(['goal'], ['again']);
    expect(builds).toBe(4);
    expect(shapes.size).toBe(2);
    expect(await db.selectFrom('teams').select(['goal', 'status']).executeTakeFirst()).toEqual({
      goal: 'again',
      status: 'READY',
    });
  });
});
