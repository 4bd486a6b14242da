import {
  BudgetLimits,
  type Budgets,
  decideSpend,
  notFound,
  type Spend,
  type TeamBudgetLimits,
  type TeamId,
  utcDay,
} from '@agent-teams/core';
import type { MemoryStoreState } from './state.js';

interface HeldReservation extends Spend {
  readonly teamId: TeamId;
  readonly owner: string;
  readonly day: string;
  readonly createdAtMs: number;
  readonly holder: string | undefined;
}

const NO_LIMITS: TeamBudgetLimits = { maxTokens: null, maxCost: null };

/** The in-memory {@link Budgets}: limits per team, reservations by id, usage from the usage ledger. */
export function memoryBudgets(state: MemoryStoreState): Budgets {
  const limits = state.teamBudgets;
  const held = new Map<string, HeldReservation>();
  const usedBy = (match: (teamId: TeamId, day: string) => boolean): Spend => {
    let tokens = 0;
    let cost = 0;
    for (const entry of state.usage.values()) {
      if (!match(entry.teamId, utcDay(state.usageAt.get(entry.id) ?? '1970-01-01T00:00:00.000Z'))) continue;
      tokens += entry.inputTokens + entry.outputTokens;
      cost += entry.cost;
    }
    return { tokens, cost };
  };
  const heldBy = (match: (r: HeldReservation) => boolean, nowMs: number, replacing: string): Spend => {
    let tokens = 0;
    let cost = 0;
    for (const [id, r] of held) {
      if (id === replacing || nowMs - r.createdAtMs >= BudgetLimits.reservationTtlMs || !match(r)) continue;
      tokens += r.tokens;
      cost += r.cost;
    }
    return { tokens, cost };
  };
  const add = (a: Spend, b: Spend): Spend => ({ tokens: a.tokens + b.tokens, cost: a.cost + b.cost });
  return {
    async setTeamBudget(owner, teamId, next, now) {
      const stored = state.teams.get(teamId);
      if (stored === undefined || stored.team.owner !== owner) throw notFound('team');
      const current = limits.get(teamId) ?? NO_LIMITS;
      if (current.maxTokens === next.maxTokens && current.maxCost === next.maxCost) return stored.team;
      if (next.maxTokens === null && next.maxCost === null) limits.delete(teamId);
      else limits.set(teamId, { maxTokens: next.maxTokens, maxCost: next.maxCost });
      // Subscribers re-read the team (its budget) on TEAM_CHANGED.
      const write = state.write(teamId, now);
      write.event('TEAM_CHANGED', {});
      state.commit(write);
      return state.teams.get(teamId)?.team ?? stored.team;
    },
    async teamBudgets(teamIds) {
      return new Map(
        teamIds.map((id) => {
          const used = usedBy((teamId) => teamId === id);
          return [id, { ...(limits.get(id) ?? NO_LIMITS), usedTokens: used.tokens, usedCost: used.cost }];
        }),
      );
    },
    async reserveSpend({ reservation, now, ownerLimits }) {
      const stored = state.teams.get(reservation.teamId);
      if (stored === undefined) throw notFound('team');
      const owner = stored.team.owner;
      const day = utcDay(now);
      const nowMs = Date.parse(now);
      const ownerOf = (teamId: TeamId) => state.teams.get(teamId)?.team.owner;
      const decision = decideSpend({
        owner,
        team: {
          limits: limits.get(reservation.teamId) ?? NO_LIMITS,
          spent: add(
            usedBy((teamId) => teamId === reservation.teamId),
            heldBy((r) => r.teamId === reservation.teamId, nowMs, reservation.id),
          ),
        },
        ownerDay: {
          limits: ownerLimits(owner),
          spent: add(
            usedBy((teamId, d) => ownerOf(teamId) === owner && d === day),
            heldBy((r) => r.owner === owner && r.day === day, nowMs, reservation.id),
          ),
          day,
        },
        request: reservation,
      });
      // Held under this id already (the same call sent again): replaced, as the SQL stores do.
      if (decision.ok) {
        const { tokens, cost, teamId, holder } = reservation;
        held.set(reservation.id, { tokens, cost, teamId, owner, day, createdAtMs: nowMs, holder });
      }
      return decision;
    },
    async releaseSpend(reservationId, holder) {
      // With a holder, only while the reservation is still that holder's, as the SQL stores do.
      if (holder === undefined || held.get(reservationId)?.holder === holder) held.delete(reservationId);
    },
  };
}
