import pg from 'pg';
import { ActiveSampler } from './active-sampler.js';

/** Phases that hold one of the 8 active slots (core's `ACTIVE_PHASES`). */
const ACTIVE_PHASES = ['ADMITTING', 'RUNNING', 'RESUMING', 'CANCELLING'];
/** Record kinds that carry a job's outcome in the shared record. */
const RESULT_KINDS = ['COMPLETED', 'FAILED', 'CANCELLED'];

/** A `jobs` row as the cluster tests read it. */
export interface JobRow {
  readonly id: string;
  readonly team_id: string;
  readonly kind: string;
  readonly phase: string;
  readonly parent_id: string | null;
  readonly run_key: string | null;
  readonly result_text: string | null;
  readonly error: string | null;
  readonly finished_at: string | null;
  readonly updated_at: string;
  /** The server incarnation driving it (null: none) and the fencing token of its last claim. */
  readonly lease_server: string | null;
  readonly lease_fence: number;
}

/**
 * Reads the shared PostgreSQL database directly, beside the servers, to check invariants no
 * single server can vouch for (the database-wide active count, duplicate rows).
 */
export class ClusterObserver {
  readonly #pool: pg.Pool;

  constructor(url: string) {
    this.#pool = new pg.Pool({ connectionString: url, max: 3 });
    // An idle connection the server ends (the test's DROP DATABASE ... WITH (FORCE), "terminating
    // connection due to administrator command") is an 'error' on the pool; without a listener
    // Node throws it as an uncaught exception, which fails the whole run.
    this.#pool.on('error', () => undefined);
  }

  /** Jobs holding an active slot right now, across every server. */
  async activeCount(): Promise<number> {
    const { rows } = await this.#pool.query<{ n: string }>(
      'SELECT count(*) AS n FROM jobs WHERE unfinished = 1 AND phase = ANY($1)',
      [ACTIVE_PHASES],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Samples {@link activeCount} back to back, pausing `intervalMs` between samples, until stopped. */
  sampleActive(intervalMs = 10): ActiveSampler {
    return new ActiveSampler(() => this.activeCount(), intervalMs);
  }

  /** The jobs of these teams, oldest first. */
  async jobs(teamIds: readonly string[]): Promise<JobRow[]> {
    const { rows } = await this.#pool.query<JobRow>(
      `SELECT id, team_id, kind, phase, parent_id, run_key, result_text, error, finished_at, updated_at,
              lease_server, lease_fence FROM jobs WHERE team_id = ANY($1) ORDER BY seq`,
      [teamIds],
    );
    // int8 arrives as a string from pg.
    return rows.map((row) => ({ ...row, lease_fence: Number(row.lease_fence) }));
  }

  /** How many outcome messages (COMPLETED/FAILED/CANCELLED) the shared record holds per job. */
  async resultRecordsPerJob(teamIds: readonly string[]): Promise<Map<string, number>> {
    return this.#countBy(
      'SELECT job_id AS key, count(*) AS n FROM record_messages WHERE team_id = ANY($1) AND kind = ANY($2) GROUP BY job_id',
      [teamIds, RESULT_KINDS],
    );
  }

  /** How many `runtime_runs` rows (started turns) each job has. */
  async runsPerJob(jobIds: readonly string[]): Promise<Map<string, number>> {
    return this.#countBy(
      'SELECT job_id AS key, count(*) AS n FROM runtime_runs WHERE job_id = ANY($1) GROUP BY job_id',
      [jobIds],
    );
  }

  /** Ids of every server incarnation that ever registered a lease (`server_leases`), live or expired. */
  async serverIds(): Promise<string[]> {
    const { rows } = await this.#pool.query<{ server_id: string }>('SELECT server_id FROM server_leases');
    return rows.map((row) => row.server_id);
  }

  /** Which server incarnation holds each unfinished job of these teams (`jobs.lease_server`, null: none). */
  async leaseHolders(teamIds: readonly string[]): Promise<Map<string, string | null>> {
    const { rows } = await this.#pool.query<{ id: string; lease_server: string | null }>(
      'SELECT id, lease_server FROM jobs WHERE team_id = ANY($1) AND unfinished = 1',
      [teamIds],
    );
    return new Map(rows.map((row) => [row.id, row.lease_server]));
  }

  /** The last event seq of a team's log. */
  async lastEventSeq(teamId: string): Promise<number> {
    const { rows } = await this.#pool.query<{ seq: number }>('SELECT last_event_seq AS seq FROM teams WHERE id = $1', [
      teamId,
    ]);
    return Number(rows[0]?.seq ?? -1);
  }

  /**
   * Everything a late write could change for these teams: job rows, shared-record messages,
   * conversation messages, runtime runs and the event log, as comparable JSON.
   */
  async snapshot(teamIds: readonly string[]): Promise<string> {
    const q = async (text: string) => (await this.#pool.query(text, [teamIds])).rows;
    const parts = {
      jobs: await q(
        `SELECT id, phase, result_text, result_truncated, error, finished_at, updated_at, run_key, run_id
           FROM jobs WHERE team_id = ANY($1) ORDER BY id`,
      ),
      records: await q('SELECT id, kind, job_id, text FROM record_messages WHERE team_id = ANY($1) ORDER BY id'),
      conversation: await q(
        `SELECT c.id, c.role, c.text, c.job_id FROM conversation_messages c
           JOIN members m ON m.conversation_id = c.conversation_id WHERE m.team_id = ANY($1) ORDER BY c.id`,
      ),
      runs: await q(
        `SELECT r.run_key, r.state, r.state_json, r.updated_at FROM runtime_runs r
           JOIN jobs j ON j.id = r.job_id WHERE j.team_id = ANY($1) ORDER BY r.run_key`,
      ),
      events: await q(
        'SELECT team_id, seq, kind, job_id FROM team_events WHERE team_id = ANY($1) ORDER BY team_id, seq',
      ),
    };
    return JSON.stringify(parts, null, 1);
  }

  /**
   * A printout for a failed test: the unfinished jobs with their leases, the server leases, and
   * the database sessions that hold a transaction open or wait for a lock.
   */
  async describe(): Promise<string> {
    const table = async (title: string, text: string) => {
      const { rows } = await this.#pool.query(text);
      return `${title}:\n${rows.map((row) => `  ${JSON.stringify(row)}`).join('\n') || '  (none)'}`;
    };
    const parts = await Promise.all([
      table(
        'unfinished jobs',
        'SELECT id, team_id, kind, phase, run_key, lease_server, lease_fence, updated_at FROM jobs WHERE unfinished = 1 ORDER BY seq',
      ),
      table('server leases', 'SELECT server_id, started_at, renewed_at, expires_at_ms FROM server_leases'),
      table(
        'busy sessions',
        `SELECT pid, state, wait_event_type, wait_event, left(query, 160) AS query, now() - xact_start AS in_transaction
           FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
            AND (state LIKE 'idle in transaction%' OR wait_event_type = 'Lock')`,
      ),
    ]);
    return parts.join('\n');
  }

  /**
   * Closes every connection and resolves once each one has really ended.
   *
   * @remarks `pool.end()` resolves as soon as it has asked its clients to end, before their
   * connections are closed; waiting for each client's `remove` keeps the database drop that
   * follows from meeting a connection of ours half-closed.
   */
  async close(): Promise<void> {
    let open = this.#pool.totalCount;
    const ended = new Promise<void>((resolve) => {
      if (open === 0) resolve();
      this.#pool.on('remove', () => {
        open -= 1;
        if (open === 0) resolve();
      });
    });
    await this.#pool.end();
    await ended;
  }

  async #countBy(text: string, values: unknown[]): Promise<Map<string, number>> {
    const { rows } = await this.#pool.query<{ key: string; n: string }>(text, values);
    return new Map(rows.map((row) => [row.key, Number(row.n)]));
  }
}
