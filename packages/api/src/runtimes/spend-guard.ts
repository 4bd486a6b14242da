import { randomUUID } from 'node:crypto';
import {
  type BudgetPolicy,
  type Budgets,
  type Clock,
  type JobId,
  type Logger,
  nowTimestamp,
  ownerDayBudget,
  type Spend,
  type TeamId,
} from '@agent-teams/core';

/** A reservation held for one model call, or the refusal that names the budget. */
export type HeldSpend =
  | {
      readonly ok: true;
      /** True when a reservation was recorded (a budget applies): `release` then writes. */
      readonly reserved: boolean;
      release(): Promise<void>;
    }
  | { readonly ok: false; readonly message: string };

/**
 * Checks each model call against the budgets before it is made (contract `budgets.md`): the call's
 * reservation (prompt estimate plus output allowance) is recorded atomically, and held until the
 * call's real usage is recorded.
 */
export interface SpendGuard {
  /** `holder`: who holds the reservation (`SpendReservation.holder`); its release names it. */
  reserve(
    call: { readonly teamId: TeamId; readonly jobId: JobId; readonly holder?: string } & Spend,
  ): Promise<HeldSpend>;
}

/**
 * `spend` for one execution of a turn: every reservation it makes names that execution as its
 * holder. The job's one reservation id is shared by every execution (the call a server sends again
 * after a takeover replaces the dead one's reservation); with the holder, the execution that lost
 * the job, when it wakes and releases, leaves the reservation of the one that took it over.
 */
export function heldByExecution(spend: SpendGuard | null): SpendGuard | null {
  if (spend === null) return null;
  const holder = randomUUID();
  return { reserve: (call) => spend.reserve({ ...call, holder }) };
}

/** What {@link createSpendGuard} is built from. */
export interface SpendGuardDeps {
  readonly store: Budgets;
  readonly policy: BudgetPolicy;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** The {@link SpendGuard} over the store's `Budgets` role and the configured daily limits. */
export function createSpendGuard(deps: SpendGuardDeps): SpendGuard {
  return {
    async reserve(call) {
      // One id per job, not per call: a job makes one model call at a time, and the same call sent
      // again after its server died (a restart, a takeover) then replaces the dead server's
      // reservation instead of holding the budget twice for an hour (found under SIGKILL loops on
      // PostgreSQL: jobs refused BUDGET_EXHAUSTED with most of the budget in stale reservations).
      const id = `spend_${call.jobId}`;
      const decision = await deps.store.reserveSpend({
        reservation: {
          id,
          teamId: call.teamId,
          jobId: call.jobId,
          tokens: call.tokens,
          cost: call.cost,
          ...(call.holder === undefined ? {} : { holder: call.holder }),
        },
        now: nowTimestamp(deps.clock),
        ownerLimits: (owner) => ownerDayBudget(deps.policy, owner),
      });
      if (!decision.ok) return { ok: false, message: decision.message };
      // Nothing was recorded (no budget applies): releasing would be a write, or a round trip, for nothing.
      if (decision.held === false) return { ok: true, reserved: false, release: async () => undefined };
      return {
        ok: true,
        reserved: true,
        release: async () => {
          // A failed release only delays the budget: the reservation stops counting after an hour.
          await deps.store.releaseSpend(id, call.holder).catch((error: unknown) => {
            deps.logger.warn('could not release a spend reservation', { id, error: String(error) });
          });
        },
      };
    },
  };
}
