import {
  BudgetLimits,
  decideSpend,
  notFound,
  type OwnerDayBudget,
  type OwnerId,
  type ReserveSpendArgs,
  type Spend,
  type SpendDecision,
  type Team,
  type TeamBudget,
  type TeamBudgetLimits,
  TeamEventKind,
  type TeamId,
  usageScopeKey,
  utcDay,
  utcDayBounds,
} from '@agent-teams/core';
import { type Kysely, sql } from 'kysely';
import { CompiledStatement } from './compiled-statement.js';
import type { Database } from './database-types.js';
import { toTeam, withoutSeq } from './row-mappers.js';
import { readTeam } from './team-writes.js';
import { usageTotals } from './usage.js';
import type { WriteScope } from './write-transaction.js';

/** A number column PostgreSQL may answer as text (bigint, sums). */
const num = (value: number | string | null | undefined): number =>
  value === null || value === undefined ? 0 : Number(value);
const limit = (value: number | string | null): number | null => (value === null ? null : Number(value));

/**
 * `setTeamBudget` in the caller's transaction: upserts the limits (both null: deletes them) and
 * appends TEAM_CHANGED so subscribers re-read `Team.budget`; the same limits again write nothing.
 */
export async function setTeamBudget(
  scope: WriteScope,
  owner: OwnerId,
  teamId: TeamId,
  limits: TeamBudgetLimits,
): Promise<Team> {
  const row = await scope.lockOwnedTeam(owner, teamId);
  const current = await scope.trx
    .selectFrom('team_budgets')
    .select(['max_tokens', 'max_cost'])
    .where('team_id', '=', teamId)
    .executeTakeFirst();
  const same =
    (current ? limit(current.max_tokens) : null) === limits.maxTokens &&
    (current ? limit(current.max_cost) : null) === limits.maxCost;
  if (same) return withoutSeq(toTeam(row));
  await scope.events.emit(teamId, TeamEventKind.TEAM_CHANGED);
  await scope.trx.deleteFrom('team_budgets').where('team_id', '=', teamId).execute();
  if (limits.maxTokens !== null || limits.maxCost !== null) {
    await scope.trx
      .insertInto('team_budgets')
      .values({ team_id: teamId, max_tokens: limits.maxTokens, max_cost: limits.maxCost, updated_at: scope.now })
      .execute();
  }
  return readTeam(scope, teamId);
}

/** `teamBudgets`: limits plus recorded usage, one entry per id asked. */
export async function teamBudgets(
  db: Kysely<Database>,
  teamIds: readonly TeamId[],
): Promise<ReadonlyMap<TeamId, TeamBudget>> {
  const result = new Map<TeamId, TeamBudget>();
  if (teamIds.length === 0) return result;
  const rows = await db.selectFrom('team_budgets').selectAll().where('team_id', 'in', teamIds).execute();
  const limits = new Map(rows.map((row) => [row.team_id, row]));
  const used = await usageTotals(
    db,
    teamIds.map((id) => ({ kind: 'team', id })),
  );
  for (const id of teamIds) {
    const row = limits.get(id);
    const totals = used.get(usageScopeKey({ kind: 'team', id }));
    result.set(id, {
      maxTokens: row ? limit(row.max_tokens) : null,
      maxCost: row ? limit(row.max_cost) : null,
      usedTokens: (totals?.inputTokens ?? 0) + (totals?.outputTokens ?? 0),
      usedCost: totals?.cost ?? 0,
    });
  }
  return result;
}

async function sumSpend(
  query: Promise<{ tokens: number | string | null; cost: number | string | null } | undefined>,
): Promise<Spend> {
  const row = await query;
  return { tokens: num(row?.tokens), cost: num(row?.cost) };
}

const add = (a: Spend, b: Spend): Spend => ({ tokens: a.tokens + b.tokens, cost: a.cost + b.cost });

/**
 * `reserveSpend` in the caller's transaction. PostgreSQL: a transaction-scoped advisory lock per
 * owner serializes every reservation of the owner's teams across servers (a team budget is
 * within one owner, so the one lock covers both budgets); SQLite's write lock already does.
 */
export async function reserveSpend(scope: WriteScope, args: ReserveSpendArgs): Promise<SpendDecision> {
  const { reservation, now } = args;
  const team = await scope.lockTeam(reservation.teamId);
  if (team === undefined) throw notFound('team');
  const owner = team.owner as OwnerId;
  if (scope.dialect === 'postgres') {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`agent-teams/spend/${owner}`}, 0))`.execute(scope.trx);
  }
  const budgetRow = await scope.trx
    .selectFrom('team_budgets')
    .selectAll()
    .where('team_id', '=', reservation.teamId)
    .executeTakeFirst();
  const teamLimits = {
    maxTokens: budgetRow ? limit(budgetRow.max_tokens) : null,
    maxCost: budgetRow ? limit(budgetRow.max_cost) : null,
  };
  const ownerLimits = args.ownerLimits(owner);
  // No budget applies: nothing to hold the call against, so no reservation row and no commit of
  // its own (a turn's hot path). A budget set while such a call runs counts it once its usage is
  // recorded, like any call that started before the budget existed. Said (`held: false`), so the
  // guard neither releases it nor keeps the call's answer from riding: a budget may have gone since
  // `noBudgetApplies` read one.
  if (unlimited(teamLimits, ownerLimits)) return { ok: true, held: false };
  const day = utcDay(now);
  const { start, end } = utcDayBounds(now);
  const live = new Date(Date.parse(now) - BudgetLimits.reservationTtlMs).toISOString();
  const trx = scope.trx;
  // Each column summed on its own: PostgreSQL adds two `integer`s as an `integer` (a row's two
  // counts could overflow it), while its `sum` of an `integer` column is a `bigint`.
  const usageSums = [
    sql<number | string | null>`sum(model_usage.input_tokens) + sum(model_usage.output_tokens)`.as('tokens'),
    sql<number | string | null>`sum(model_usage.cost)`.as('cost'),
  ];
  const heldSums = [
    sql<number | string | null>`sum(spend_reservations.tokens)`.as('tokens'),
    sql<number | string | null>`sum(spend_reservations.cost)`.as('cost'),
  ];
  const teamUsed = await sumSpend(
    trx.selectFrom('model_usage').select(usageSums).where('team_id', '=', reservation.teamId).executeTakeFirst(),
  );
  const teamHeld = await sumSpend(
    trx
      .selectFrom('spend_reservations')
      .select(heldSums)
      .where('team_id', '=', reservation.teamId)
      .where('created_at', '>=', live)
      // The reservation this one replaces (the same call sent again) no longer counts.
      .where('id', '<>', reservation.id)
      .executeTakeFirst(),
  );
  const ownerUsed = await sumSpend(
    trx
      .selectFrom('model_usage')
      .select(usageSums)
      .where('model_usage.team_id', 'in', ownerTeamIds(trx, owner))
      .where('model_usage.created_at', '>=', start)
      .where('model_usage.created_at', '<', end)
      .executeTakeFirst(),
  );
  const ownerHeld = await sumSpend(
    trx
      .selectFrom('spend_reservations')
      .select(heldSums)
      .where('owner', '=', owner)
      .where('day', '=', day)
      .where('created_at', '>=', live)
      .where('id', '<>', reservation.id)
      .executeTakeFirst(),
  );
  const decision = decideSpend({
    owner,
    team: { limits: teamLimits, spent: add(teamUsed, teamHeld) },
    ownerDay: { limits: ownerLimits, spent: add(ownerUsed, ownerHeld), day },
    request: reservation,
  });
  if (decision.ok) {
    const held = {
      team_id: reservation.teamId,
      owner,
      day,
      tokens: reservation.tokens,
      cost: reservation.cost,
      created_at: now,
      holder: reservation.holder ?? null,
    };
    await trx
      .insertInto('spend_reservations')
      .values({ id: reservation.id, ...held })
      // Held under this id already (the call sent again after its server died): replaced.
      .onConflict((c) => c.column('id').doUpdateSet(held))
      .execute();
  }
  return decision;
}

/**
 * The ids of the owner's teams, deleted ones included: usage rows outlive their team (no foreign
 * key) and keep counting in the owner's day, so the team is found through its tombstone too.
 *
 * @remarks A tombstone is pruned only once it is more than a day old (`deleteTeam`), and a team
 * records no usage after its deletion (deletion waits for its jobs), so every deleted team with
 * usage in the current UTC day still has its tombstone.
 */
function ownerTeamIds(db: Kysely<Database>, owner: string) {
  return db
    .selectFrom('teams')
    .select('teams.id as id')
    .where('teams.owner', '=', owner)
    .union(
      db.selectFrom('team_deletions').select('team_deletions.team_id as id').where('team_deletions.owner', '=', owner),
    );
}

/** A team's owner and budget (none: nulls); compiled once (`compiled-statement.ts`). */
const TEAM_BUDGET = new CompiledStatement(1, (db, teamId: string) =>
  db
    .selectFrom('teams')
    .leftJoin('team_budgets', 'team_budgets.team_id', 'teams.id')
    .select(['teams.owner as owner', 'team_budgets.max_tokens as maxTokens', 'team_budgets.max_cost as maxCost'])
    .where('teams.id', '=', teamId),
);

/**
 * True when the team exists and neither a team budget nor its owner's day budget applies, read
 * without a transaction: then a call needs no reservation and no write transaction at all (on
 * PostgreSQL that saves BEGIN, the row and advisory locks and COMMIT: five round trips per model
 * call). False sends the caller to {@link reserveSpend}, which decides under the locks.
 */
export async function noBudgetApplies(db: Kysely<Database>, args: ReserveSpendArgs): Promise<boolean> {
  const [row] = await TEAM_BUDGET.rows(db, args.reservation.teamId);
  if (row === undefined) return false;
  const team = { maxTokens: limit(row.maxTokens ?? null), maxCost: limit(row.maxCost ?? null) };
  return unlimited(team, args.ownerLimits(row.owner as OwnerId));
}

function unlimited(team: TeamBudgetLimits, owner: OwnerDayBudget): boolean {
  return (
    team.maxTokens === null && team.maxCost === null && owner.maxTokensPerDay === null && owner.maxCostPerDay === null
  );
}

/**
 * `releaseSpend`: deletes the reservation (nothing when it is gone already); with `holder`, only
 * while it is that holder's (a reservation made again by another execution stays).
 */
export async function releaseSpend(db: Kysely<Database>, reservationId: string, holder?: string): Promise<void> {
  let query = db.deleteFrom('spend_reservations').where('id', '=', reservationId);
  if (holder !== undefined) query = query.where('holder', '=', holder);
  await query.execute();
}

/**
 * Deletes every reservation. For a server starting on a SQLite file, which its lock makes this
 * process's alone: each reservation found is of a server that died during the call (SIGKILL, a
 * crash), which the restarted server sends again, reserving anew. Left alone it would count
 * against its budgets for the hour a reservation lives (`BudgetLimits.reservationTtlMs`).
 */
export async function releaseAllSpend(db: Kysely<Database>): Promise<void> {
  await db.deleteFrom('spend_reservations').execute();
}

/**
 * Spend per owner in the UTC day of `now`: recorded usage only, reservations left out (for
 * `/metrics`, as `agent_teams_owner_spend_today`).
 */
export async function ownerSpendToday(db: Kysely<Database>, now: string): Promise<ReadonlyMap<string, Spend>> {
  const { start, end } = utcDayBounds(now);
  // A deleted team's usage still counts in its owner's day (see `ownerTeamIds`): its owner is on
  // its tombstone.
  const owners = db
    .selectFrom('teams')
    .select(['teams.id as team_id', 'teams.owner as owner'])
    .union(
      db.selectFrom('team_deletions').select(['team_deletions.team_id as team_id', 'team_deletions.owner as owner']),
    )
    .as('owners');
  const rows = await db
    .selectFrom('model_usage')
    .innerJoin(owners, 'owners.team_id', 'model_usage.team_id')
    .select([
      'owners.owner as owner',
      // Summed apart, as in `reserveSpend`: no `integer` addition to overflow.
      sql<number | string | null>`sum(model_usage.input_tokens) + sum(model_usage.output_tokens)`.as('tokens'),
      sql<number | string | null>`sum(model_usage.cost)`.as('cost'),
    ])
    .where('model_usage.created_at', '>=', start)
    .where('model_usage.created_at', '<', end)
    .groupBy('owners.owner')
    .execute();
  return new Map(rows.map((row) => [row.owner, { tokens: num(row.tokens), cost: num(row.cost) }]));
}
