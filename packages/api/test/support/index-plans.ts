import { CompiledQuery, type Kysely, sql } from 'kysely';
import type { Database } from '../../src/storage/database-types.js';
import type { DatabaseDialect } from '../../src/storage/open-database.js';
import { sqliteHandleOf } from '../../src/storage/sqlite-held-connection.js';

/** The database's index names in name order, of one table when `table` is given (migration tests). */
export async function indexNames(db: Kysely<Database>, dialect: DatabaseDialect, table?: string): Promise<string[]> {
  const rows =
    dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'index'
          and (${table ?? null} is null or tbl_name = ${table ?? null}) order by name`.execute(db)
      : await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema()
          and (${table ?? null}::text is null or tablename = ${table ?? null}) order by indexname`.execute(db);
  return rows.rows.map((row) => row.name);
}

/** The tables whose rows accumulate with a server's history (decision 0247), as a regex alternation. */
export const GROWING_TABLES =
  'jobs|team_events|record_messages|conversation_messages|openai_messages|model_usage|team_messages|team_message_deliveries|tasks|tool_requests|runtime_runs|member_run_tokens';

/** A SQLite plan step that reads one of the growing tables whole (`SCAN t`, not `SCAN t USING … INDEX`). */
export const HISTORY_SCAN = new RegExp(`SCAN (${GROWING_TABLES})\\b(?! USING)`);

/** SQLite's `EXPLAIN QUERY PLAN` of a statement, its steps joined by ` | `. */
export async function sqlitePlan(db: Kysely<Database>, statement: CompiledQuery): Promise<string> {
  const plan = await db.executeQuery(
    CompiledQuery.raw(`explain query plan ${statement.sql}`, [...statement.parameters]),
  );
  return plan.rows.map((row) => (row as { detail: string }).detail).join(' | ');
}

/**
 * PostgreSQL's generic plan (parameters unknown, as a prepared statement gets after five runs) of
 * each statement `explain` is given, on one connection of `db` so the settings hold; sequential
 * scans off, so an almost empty table shows which index the planner can use at all. `explain`
 * prepares the statement as `name` and answers its plan's lines joined by ` | `.
 */
export async function postgresGenericPlans(
  db: Kysely<Database>,
  check: (explain: (name: string, statement: CompiledQuery) => Promise<string>) => Promise<void>,
): Promise<void> {
  await db.connection().execute(async (connection) => {
    await sql`set enable_seqscan = off`.execute(connection);
    await sql`set plan_cache_mode = force_generic_plan`.execute(connection);
    await check(async (name, statement) => {
      await connection.executeQuery(CompiledQuery.raw(`prepare ${name} as ${statement.sql}`));
      const values = statement.parameters.map((value) => `'${String(value).replaceAll("'", "''")}'`).join(', ');
      const args = statement.parameters.length === 0 ? '' : `(${values})`;
      const plan = await connection.executeQuery(CompiledQuery.raw(`explain execute ${name}${args}`));
      return plan.rows.map((row) => Object.values(row as object).join(' ')).join(' | ');
    });
  });
}

/**
 * Records the text of every statement the SQLite database `db` (opened by `openDatabase`) prepares
 * from now on into `into`. At the handle beneath Kysely, so the statements a write runs straight
 * on its held connection are seen too, and no plugin changes how they are built.
 */
export function recordSqliteTexts(db: Kysely<Database>, into: Set<string>): void {
  const handle = sqliteHandleOf(db);
  if (handle === undefined) throw new Error('[agent-teams/api] not a SQLite database opened by openDatabase');
  const prepare = handle.prepare.bind(handle);
  handle.prepare = (text: string) => {
    into.add(text);
    return prepare(text);
  };
}

/**
 * Of `texts`, each read, update and delete whose SQLite plan on `db` scans a table that grows with
 * the history ({@link HISTORY_SCAN}), as its plan and text. Parameters are bound as nulls: a
 * literal a partial index needs is written into the text (`literal-phase.ts`), not bound.
 */
export async function historyScans(db: Kysely<Database>, texts: Iterable<string>): Promise<string[]> {
  const scans: string[] = [];
  for (const text of texts) {
    if (!/^(select|update|delete|with) /.test(text)) continue;
    const nulls = Array.from(text.match(/\?/g) ?? [], () => null);
    const plan = await sqlitePlan(db, CompiledQuery.raw(text, nulls));
    if (HISTORY_SCAN.test(plan)) scans.push(`${plan}\n  ${text}`);
  }
  return scans;
}
