import type { OwnerId, TeamId } from '../../model/ids.js';
import type { Team } from '../../model/team.js';
import type { SpendDecision } from '../../spend/decide-spend.js';
import type { OwnerDayBudget, SpendReservation, TeamBudget, TeamBudgetLimits } from '../../spend/spend-types.js';

/** Arguments of {@link Budgets.reserveSpend}. */
export interface ReserveSpendArgs {
  readonly reservation: SpendReservation;
  readonly now: string;
  /** The daily limits of the team's owner (from the configuration). */
  readonly ownerLimits: (owner: OwnerId) => OwnerDayBudget;
}

/** Store role: spending budgets of teams and owners, and the reservations of model calls in flight. */
export interface Budgets {
  /**
   * Sets (or, with both limits null, removes) a team's limits.
   * @throws DomainError NOT_FOUND for an absent team or another owner's.
   */
  setTeamBudget(owner: OwnerId, teamId: TeamId, limits: TeamBudgetLimits, now: string): Promise<Team>;
  /** Each team's limits and recorded usage (tokens in + out, cost); every id asked gets an entry. */
  teamBudgets(teamIds: readonly TeamId[]): Promise<ReadonlyMap<TeamId, TeamBudget>>;
  /**
   * Checks one model call against its team's budget and its owner's budget of the UTC day of
   * `now`, counting recorded usage plus the reservations still held (younger than an hour), and
   * records the reservation when `decideSpend` allows it. Atomic across every server on the
   * database: two calls racing for the last of a budget never both pass. A reservation under an id
   * already held replaces it: the one it replaces is not counted in the decision, and is gone once
   * the new one is recorded (a refused one leaves it as it was).
   * @throws DomainError NOT_FOUND when the team is gone.
   */
  reserveSpend(args: ReserveSpendArgs): Promise<SpendDecision>;
  /**
   * Drops a reservation once its call's real usage is recorded (or the call failed); idempotent.
   * With `holder`, only while the reservation is still that holder's (not replaced by another's).
   */
  releaseSpend(reservationId: string, holder?: string): Promise<void>;
}
