import type { Kysely, Migration } from 'kysely';

/**
 * Roles, the lead and retirement of members:
 *
 * - `members.role`: free text shown in the roster, the team context and the member's
 *   instructions; NULL without a role.
 * - `members.is_lead`: 1 for the team's one lead, else 0 (an integer, like `truncated`, so both
 *   databases read it the same). Existing members are no lead.
 * - `members.retired_at`: when the member was retired; NULL while it is active.
 *
 * `teams.status` is plain text without a CHECK, so the CLOSED status needs no change here.
 * Numbered 0007: 0006 belongs to another line of work; Kysely applies migrations in name order,
 * so the gap changes nothing.
 */
export function memberRolesMigration(): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('members').addColumn('role', 'text').execute();
      await db.schema
        .alterTable('members')
        .addColumn('is_lead', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('members').addColumn('retired_at', 'text').execute();
    },
  };
}
