import { createEffect, createSignal, on, Show } from 'solid-js';
import { errorCode } from '../api.js';
import { formatCost } from '../usage-format.js';
import { useWidget } from './context.js';
import { useTeam } from './team-context.js';
import { BUDGET_QUERY, type BudgetView, SET_BUDGET } from './teamwork-queries.js';
import { teamworkStrings } from './teamwork-strings.js';

/** The largest token limit GraphQL's `Int` (32-bit) carries. */
const MAX_INT = 2 ** 31 - 1;

/** A limit field's value: null when empty (no limit), NaN when not a positive number (an `Int` for tokens). */
export function limitOf(value: string, integer: boolean): number | null {
  if (value.trim() === '') return null;
  const n = Number(value);
  return n > 0 && Number.isFinite(n) && (!integer || (Number.isInteger(n) && n <= MAX_INT)) ? n : Number.NaN;
}

/**
 * The team's budget (`Team.budget`): tokens and cost used against each limit, read again whenever
 * the usage totals move, and a form for the owner to set or remove it (`setTeamBudget`; off in a
 * closed team).
 */
export function BudgetPanel() {
  const { api, t, lang } = useWidget();
  const team = useTeam();
  const s = () => teamworkStrings(lang());
  const [budget, setBudget] = createSignal<BudgetView | null>(null);
  const [problem, setProblem] = createSignal('');
  const [busy, setBusy] = createSignal(false);
  const count = (n: number) => new Intl.NumberFormat(lang()).format(n);

  createEffect(
    on(team.usage, () => {
      api.query<{ team: { budget: BudgetView } | null }>(BUDGET_QUERY, { id: team.teamId }).then(
        (data) => setBudget(data.team?.budget ?? null),
        (error) => setProblem(t().common.error(errorCode(error))),
      );
    }),
  );

  const save = async (event: SubmitEvent) => {
    event.preventDefault();
    setProblem('');
    const form = event.currentTarget as HTMLFormElement;
    const field = (name: string) => (form.elements.namedItem(name) as HTMLInputElement).value;
    const maxTokens = limitOf(field('maxTokens'), true);
    const maxCost = limitOf(field('maxCost'), false);
    if (Number.isNaN(maxTokens) || Number.isNaN(maxCost)) return setProblem(s().invalid);
    setBusy(true);
    try {
      const data = await api.mutate<{ setTeamBudget: { team: { budget: BudgetView } } }>(SET_BUDGET, {
        input: { teamId: team.teamId, maxTokens, maxCost },
      });
      setBudget(data.setTeamBudget.team.budget);
    } catch (error) {
      setProblem(t().common.error(errorCode(error)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Show when={budget()}>
      {(b) => (
        <section class="budget usage" aria-label={s().budget}>
          <p>
            <strong>{s().budget}</strong>
          </p>
          <Show when={b().maxTokens === null && b().maxCost === null}>
            <p>{s().noBudget}</p>
          </Show>
          <Show when={b().maxTokens}>
            {(max) => (
              <>
                <meter min={0} max={max()} value={b().usedTokens} aria-label={`${s().budget}: tokens`} />
                <p>{s().tokens(count(b().usedTokens), count(max()))}</p>
              </>
            )}
          </Show>
          <Show when={b().maxCost}>
            {(max) => (
              <>
                <meter min={0} max={max()} value={b().usedCost} aria-label={`${s().budget}: cost`} />
                <p>{s().cost(formatCost(b().usedCost, lang()), formatCost(max(), lang()))}</p>
              </>
            )}
          </Show>
          <Show
            when={
              (b().maxTokens !== null && b().usedTokens >= (b().maxTokens ?? 0)) ||
              (b().maxCost !== null && b().usedCost >= (b().maxCost ?? 0))
            }
          >
            <p class="status">{s().usedUp}</p>
          </Show>
          <details>
            <summary>{s().setBudget}</summary>
            <form onSubmit={save}>
              <fieldset disabled={team.status() === 'CLOSED' || busy()}>
                <label for="at-max-tokens">{s().maxTokens}</label>
                <input id="at-max-tokens" name="maxTokens" inputmode="numeric" value={b().maxTokens ?? ''} />
                <label for="at-max-cost">{s().maxCost}</label>
                <input id="at-max-cost" name="maxCost" inputmode="decimal" value={b().maxCost ?? ''} />
                <button type="submit">{s().save}</button>
              </fieldset>
            </form>
          </details>
          <Show when={problem()}>
            <p role="alert" class="status">
              {problem()}
            </p>
          </Show>
        </section>
      )}
    </Show>
  );
}
