import { type Kysely, type Migration, sql } from 'kysely';
import type { DatabaseDialect } from '../open-database.js';

/**
 * Many servers on one database (see `docs/decisions/0060-many-servers-leases-and-change-feed.md`).
 *
 * - `server_leases`: one row per running server incarnation, renewed by its heartbeat. A server
 *   whose row expired is dead for everyone else: its jobs may be claimed.
 * - `jobs.lease_server` / `jobs.lease_fence`: which server incarnation drives an active job, and
 *   the fencing token, incremented by every claim. Every write of the driving server names the
 *   (server, fence) it holds; a write with an older fence is refused (`STALE_LEASE`).
 * - `team_events.change_id`: a database-wide, increasing id of every logged event (PostgreSQL
 *   only; SQLite allows one server per file and leaves it NULL). Other servers read new events by
 *   it, so a lost wake-up never loses an event.
 * - `team_deletions`: a tombstone per deleted team (its log goes with it), numbered from the same
 *   change id sequence on PostgreSQL, so other servers learn of the deletion through the same feed.
 */
export function leasesAndChangeFeedMigration(dialect: DatabaseDialect): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('server_leases')
        .addColumn('server_id', 'text', (c) => c.primaryKey())
        .addColumn('host', 'text', (c) => c.notNull())
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('renewed_at', 'text', (c) => c.notNull())
        .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.alterTable('jobs').addColumn('lease_server', 'text').execute();
      await db.schema
        .alterTable('jobs')
        .addColumn('lease_fence', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex('jobs_unfinished_lease_idx')
        .on('jobs')
        .column('lease_server')
        .where(sql.ref('unfinished'), '=', 1)
        .execute();
      await db.schema
        .alterTable('team_events')
        .addColumn('change_id', dialect === 'postgres' ? 'bigserial' : 'integer')
        .execute();
      if (dialect === 'postgres') {
        await db.schema.createIndex('team_events_change_id_idx').on('team_events').column('change_id').execute();
      }
      await db.schema
        .createTable('team_deletions')
        .addColumn('team_id', 'text', (c) => c.primaryKey())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('change_id', dialect === 'postgres' ? 'bigint' : 'integer', (c) =>
          dialect === 'postgres' ? c.notNull().defaultTo(sql`nextval('team_events_change_id_seq')`) : c,
        )
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      if (dialect === 'postgres') {
        await db.schema.createIndex('team_deletions_change_id_idx').on('team_deletions').column('change_id').execute();
      }
    },
  };
}
