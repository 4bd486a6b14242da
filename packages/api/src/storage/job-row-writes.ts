import type { Job } from '@agent-teams/core';
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { CompiledShapes } from './compiled-statement.js';
import type { Database, JobsTable } from './database-types.js';
import { jobInsertRow } from './row-mappers.js';

type JobColumn = keyof Insertable<JobsTable>;

/**
 * The `jobs` inserts, compiled once per column list and returning (`compiled-statement.ts`):
 * building the 33-column insert cost more than running it. `jobInsertRow` always names the same
 * columns, so there are two shapes in practice.
 */
const INSERTS = new CompiledShapes<Selectable<JobsTable>>(8);

async function insert(db: Kysely<Database>, job: Omit<Job, 'seq'>, now: string, returning: boolean) {
  const row = jobInsertRow(job, now);
  const columns = Object.keys(row) as JobColumn[];
  const result = await INSERTS.execute(
    db,
    `${returning ? 'returning' : 'plain'}:${columns.join(',')}`,
    (target, values) => {
      const built = target
        .insertInto('jobs')
        .values(Object.fromEntries(columns.map((column, i) => [column, values[i]])) as Insertable<JobsTable>);
      return returning ? built.returningAll() : (built as never);
    },
    columns.map((column) => row[column]),
  );
  return result.rows;
}

/** Inserts a new job's row (`jobInsertRow`). */
export async function insertJob(db: Kysely<Database>, job: Omit<Job, 'seq'>, now: string): Promise<void> {
  await insert(db, job, now, false);
}

/** Inserts a new job's row and returns it as stored (its `seq`, its defaults). */
export async function insertJobReturning(
  db: Kysely<Database>,
  job: Omit<Job, 'seq'>,
  now: string,
): Promise<Selectable<JobsTable>> {
  const [row] = await insert(db, job, now, true);
  if (row === undefined) throw new Error(`[agent-teams/api] the insert of job ${job.id} returned no row`);
  return row;
}

/**
 * The `jobs` state updates, compiled once per set of changed columns (and with or without a new
 * lease): a step changes only the columns whose value changes (`jobStateUpdate`), and the steps
 * of a turn write a handful of such sets.
 */
const UPDATES = new CompiledShapes<{ lease_fence: number | string }>(64);

/**
 * Writes `columns` to job `jobId`; with `leaseTo`, also hands its lease to that server and bumps
 * the fence. Returns the rows updated and, with a lease, the new fence.
 */
export async function updateJobRow(
  db: Kysely<Database>,
  jobId: string,
  columns: Updateable<JobsTable>,
  leaseTo: string | undefined,
): Promise<{ updated: number; fence: number }> {
  const names = Object.keys(columns) as (keyof Updateable<JobsTable>)[];
  const leased = leaseTo !== undefined;
  const values: unknown[] = names.map((name) => columns[name]);
  if (leased) values.push(leaseTo);
  values.push(jobId);
  const result = await UPDATES.execute(
    db,
    `${leased ? 'lease' : 'keep'}:${names.join(',')}`,
    (target, marks) => {
      const set = Object.fromEntries(names.map((name, i) => [name, marks[i]])) as Updateable<JobsTable>;
      const query = target
        .updateTable('jobs')
        .set((eb) => ({
          ...set,
          ...(leased ? { lease_server: marks[names.length] as string, lease_fence: eb('lease_fence', '+', 1) } : {}),
        }))
        .where('id', '=', marks[marks.length - 1] as string);
      return leased ? query.returning('lease_fence') : (query as never);
    },
    values,
  );
  if (!leased) return { updated: Number(result.numAffectedRows ?? 0n), fence: 0 };
  const [row] = result.rows;
  return { updated: row === undefined ? 0 : 1, fence: row === undefined ? 0 : Number(row.lease_fence) };
}
