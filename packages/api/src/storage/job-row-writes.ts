import type { Job } from '@agent-teams/core';
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { CompiledShapes } from './compiled-statement.js';
import type { Database, JobsTable } from './database-types.js';
import { writeThenCheck } from './pg-held-connection.js';
import { exactlyOneRow, serverCheckError } from './pg-server-check.js';
import { jobInsertRow, toJob } from './row-mappers.js';

type JobColumn = keyof Insertable<JobsTable>;

/**
 * The `jobs` inserts, compiled once per column list and dialect's way of reporting `seq`
 * (`compiled-statement.ts`): building the 33-column insert cost more than running it.
 * `jobInsertRow` always names the same columns, so there are two shapes in practice.
 */
const INSERTS = new CompiledShapes<{ seq: Selectable<JobsTable>['seq'] }>(8);

/** How an insert reports the `seq` it was given: not at all, or by `RETURNING` (PostgreSQL). */
type SeqReport = 'none' | 'returning';

function insert(db: Kysely<Database>, row: Insertable<JobsTable>, report: SeqReport) {
  const columns = Object.keys(row) as JobColumn[];
  return INSERTS.execute(
    db,
    `${report}:${columns.join(',')}`,
    (target, values) => {
      const built = target
        .insertInto('jobs')
        .values(Object.fromEntries(columns.map((column, i) => [column, values[i]])) as Insertable<JobsTable>);
      return report === 'returning' ? built.returning('seq') : (built as never);
    },
    columns.map((column) => row[column]),
  );
}

/** Inserts a new job's row (`jobInsertRow`). */
export async function insertJob(db: Kysely<Database>, job: Omit<Job, 'seq'>, now: string): Promise<void> {
  await insert(db, jobInsertRow(job, now), 'none');
}

/**
 * Inserts a new job's row and returns the job as it now reads: the row as written with the `seq`
 * the database assigned and the lease columns' defaults (`toJob`).
 *
 * @remarks Only `seq` comes back from the database. On SQLite it is the statement's rowid
 * (`seq` is the `INTEGER PRIMARY KEY`), read without `RETURNING`: `RETURNING *` made the insert
 * 2–4× slower (60–100 µs against 20–40 µs on the benchmark's database, docs/benchmarks.md,
 * thirteenth pass), and even `RETURNING "seq"` cost 30 µs. PostgreSQL has no rowid, so it returns
 * `seq` alone. A test checks the job against a read of the stored row on both engines.
 */
export async function insertJobReturning(
  db: Kysely<Database>,
  dialect: 'sqlite' | 'postgres',
  job: Omit<Job, 'seq'>,
  now: string,
): Promise<Job> {
  const row = jobInsertRow(job, now);
  const result = await insert(db, row, dialect === 'postgres' ? 'returning' : 'none');
  const seq = dialect === 'postgres' ? result.rows[0]?.seq : result.insertId;
  if (seq === undefined) throw new Error(`[agent-teams/api] the insert of job ${job.id} reported no seq`);
  // Not a literal that begins with a spread: `seq` and the lease columns are new keys at run time
  // (see `UNADMITTED` in the core).
  return toJob(Object.assign({}, row, { seq, lease_server: null, lease_fence: 0 }) as Selectable<JobsTable>);
}

/**
 * The `jobs` state updates, compiled once per set of changed columns (and with or without a new
 * lease): a step changes only the columns whose value changes (`jobStateUpdate`), and the steps
 * of a turn write a handful of such sets.
 */
const UPDATES = new CompiledShapes<{ lease_fence: number | string }>(64);

/**
 * Writes `columns` to job `jobId`; with `leaseTo`, also hands its lease to that server and bumps
 * the fence. Returns the rows updated and, with a lease, the new fence. With `checked`
 * (PostgreSQL), the server fails the statement unless it updated the row, and, with a known
 * `fenceBefore`, only while the row's fence is still that (`pg-server-check.ts`).
 */
export async function updateJobRow(
  db: Kysely<Database>,
  jobId: string,
  columns: Updateable<JobsTable>,
  leaseTo: string | undefined,
  checked: { readonly fenceBefore: number | undefined } | null = null,
): Promise<{ updated: number; fence: number }> {
  const names = Object.keys(columns) as (keyof Updateable<JobsTable>)[];
  const leased = leaseTo !== undefined;
  const fenced = checked?.fenceBefore !== undefined;
  const values: unknown[] = names.map((name) => columns[name]);
  if (leased) values.push(leaseTo);
  values.push(jobId);
  if (fenced) values.push(checked?.fenceBefore);
  const result = await UPDATES.execute(
    db,
    `${leased ? 'lease' : 'keep'}:${checked === null ? '' : fenced ? 'fence' : 'checked'}:${names.join(',')}`,
    (target, marks) => {
      const set = Object.fromEntries(names.map((name, i) => [name, marks[i]])) as Updateable<JobsTable>;
      let query = target
        .updateTable('jobs')
        .set((eb) => ({
          ...set,
          ...(leased ? { lease_server: marks[names.length] as string, lease_fence: eb('lease_fence', '+', 1) } : {}),
        }))
        .where('id', '=', marks[names.length + (leased ? 1 : 0)] as string);
      if (fenced) query = query.where('lease_fence', '=', marks[marks.length - 1] as number);
      if (checked === null) return leased ? query.returning('lease_fence') : (query as never);
      const what = fenced ? 'a job step found no row at its fence' : 'a job step found no row';
      return exactlyOneRow(target, query.returning('lease_fence'), what);
    },
    values,
  );
  if (checked !== null) {
    const [row] = result.rows;
    return { updated: result.rows.length, fence: row === undefined ? 0 : Number(row.lease_fence) };
  }
  if (!leased) return { updated: Number(result.numAffectedRows ?? 0n), fence: 0 };
  const [row] = result.rows;
  return { updated: row === undefined ? 0 : 1, fence: row === undefined ? 0 : Number(row.lease_fence) };
}

/** A step's lease: the server it goes to, and the row's fence as read under its team's lock, if known. */
export interface StepLease {
  readonly to: string;
  readonly fenceBefore: number | undefined;
}

/**
 * {@link updateJobRow} for a job's step, which must find its row; returns the new fence with a
 * lease (else 0). A known fence before makes the new one that plus one, checked against the
 * answer before the commit; else it is the answer's. An admission knows it: the row was read
 * under its team's lock (a pass locks the row too), in a phase waiting for a slot, and the only
 * write of a fence without the team's lock, a lease claim, takes active jobs only. Only a lease
 * without a known fence waits for the answer: on PostgreSQL the next statements follow the update
 * on the wire, and so does the COMMIT, the server checking the row and its fence
 * (`pg-held-connection.ts`, `pg-server-check.ts`).
 */
export async function writeJobStep(
  db: Kysely<Database>,
  dialect: 'sqlite' | 'postgres',
  jobId: string,
  columns: Updateable<JobsTable>,
  lease: StepLease | null,
): Promise<number> {
  const expected = lease?.fenceBefore === undefined ? undefined : lease.fenceBefore + 1;
  let fence = expected ?? 0;
  const check = (written: { updated: number; fence: number }) => {
    if (written.updated !== 1) throw new Error(`[agent-teams/api] job ${jobId} is gone mid-transaction`);
    if (expected !== undefined && written.fence !== expected) {
      throw new Error(`[agent-teams/api] job ${jobId}'s fence is ${written.fence}, not ${expected}, under its lock`);
    }
    if (lease !== null) fence = written.fence;
  };
  const checked = dialect === 'postgres' ? { fenceBefore: lease?.fenceBefore } : null;
  const send = () => updateJobRow(db, jobId, columns, lease?.to, checked);
  if (lease === null || expected !== undefined) await writeThenCheck(db, send, check, checked !== null);
  // Awaited here: a refusal of the server reads as the store's own error, as when it is left.
  else check(await send().catch((error: unknown) => Promise.reject(serverCheckError(error))));
  return fence;
}
