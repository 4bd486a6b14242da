import { createEffect, createMemo, createSignal, For, Show } from 'solid-js';
import { AGENTS_QUERY, CREATE_TEAM, errorCode } from '../api.js';
import { createRetryKey } from '../ids.js';
import { checkText, deriveMemberNames, LIMITS, type TextLimit } from '../limits.js';
import { useWidget } from './context.js';

interface AgentItem {
  id: string;
  name: string;
  title: string;
  description: string;
}

/** "Build your team": name, goal and 2–8 agents from the catalog (never invented ones). */
export function CreateForm(props: { onCreated: (teamId: string) => void }) {
  const { api, t, setStatus } = useWidget();
  // A failed read shows an error and a retry, never agents; only the latest read counts.
  const [catalog, setCatalog] = createSignal<AgentItem[] | null>(null);
  const [catalogState, setCatalogState] = createSignal<'loading' | 'ready' | 'error'>('loading');
  let reads = 0;
  const loadCatalog = async () => {
    const read = ++reads;
    setCatalogState('loading');
    try {
      const data = await api.query<{ agents: { edges: { node: AgentItem }[] } }>(AGENTS_QUERY);
      if (read !== reads) return;
      setCatalog(data.agents.edges.map((edge) => edge.node));
      setCatalogState('ready');
    } catch {
      if (read !== reads) return;
      setCatalog(null);
      setCatalogState('error');
    }
  };
  void loadCatalog();
  const [search, setSearch] = createSignal('');
  const [chosen, setChosen] = createSignal<string[]>([]);
  const [name, setName] = createSignal('');
  const [goal, setGoal] = createSignal('');
  const [busy, setBusy] = createSignal(false);
  const createKey = createRetryKey();

  // Keep only the chosen agents that still exist after a reload.
  createEffect(() => {
    const list = catalog();
    if (list) setChosen((ids) => ids.filter((id) => list.some((agent) => agent.id === id)));
  });

  const visible = createMemo(() => {
    const q = search().trim().toLowerCase();
    return (catalog() ?? []).filter((agent) =>
      [agent.title, agent.name, agent.description].some((field) => field.toLowerCase().includes(q)),
    );
  });
  const byId = (id: string) => catalog()?.find((agent) => agent.id === id);
  const toggle = (id: string, on: boolean) =>
    setChosen((ids) => (on ? (ids.includes(id) ? ids : [...ids, id]) : ids.filter((x) => x !== id)));

  const problem = (label: string, value: string, limit: TextLimit) => {
    const result = checkText(value, limit);
    if (result === 'blank') return t().common.blank(label);
    if (result === 'unstorable') return t().common.unstorable(label);
    if (result === 'tooLong') return t().common.tooLong(label, limit.chars, limit.bytes);
    return null;
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy()) return;
    setStatus('');
    const message =
      problem(t().create.teamName, name(), LIMITS.teamName) ?? problem(t().create.goal, goal(), LIMITS.goal);
    if (message) return setStatus(message);
    const agents = chosen()
      .map(byId)
      .filter((agent): agent is AgentItem => agent !== undefined);
    const names = deriveMemberNames(agents.map((agent) => agent.title || agent.name));
    const members = agents.map((agent, i) => ({ name: names[i], agentId: agent.id }));
    const payload = { name: name(), goal: goal(), members };
    const input = { ...payload, clientRequestId: createKey.keyFor(JSON.stringify(payload)) };
    setBusy(true);
    try {
      const data = await api.mutate<{ createTeam: { team: { id: string } } }>(CREATE_TEAM, { input });
      createKey.rotate();
      props.onCreated(data.createTeam.team.id);
    } catch (error) {
      setStatus(t().common.error(errorCode(error)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} aria-labelledby="at-create-heading" novalidate>
      <h2 id="at-create-heading">{t().create.buildTeam}</h2>
      <label for="at-name">{t().create.teamName}</label>
      <input id="at-name" value={name()} onInput={(e) => setName(e.currentTarget.value)} required />
      <label for="at-goal">{t().create.goal}</label>
      <textarea id="at-goal" rows={3} value={goal()} onInput={(e) => setGoal(e.currentTarget.value)} required />
      <h3>{t().create.teamMembers}</h3>
      <p class="muted" aria-live="polite">
        {t().create.counter(chosen().length)}
      </p>
      <div class="chips">
        <For each={chosen()}>
          {(id) => (
            <button
              type="button"
              class="chip"
              aria-label={t().create.remove(byId(id)?.title ?? id)}
              onClick={() => toggle(id, false)}
            >
              {byId(id)?.title} ×
            </button>
          )}
        </For>
      </div>
      <label for="at-search">{t().create.searchAgents}</label>
      <input id="at-search" type="search" value={search()} onInput={(e) => setSearch(e.currentTarget.value)} />
      <Show when={catalogState() === 'loading'}>
        <p class="muted">{t().create.loadingAgents}</p>
      </Show>
      <Show when={catalogState() === 'error'}>
        <p role="alert">{t().create.catalogError}</p>
      </Show>
      <Show when={catalogState() === 'ready'}>
        <ul class="catalog">
          <For
            each={visible()}
            fallback={<li class="muted">{(catalog() ?? []).length < 2 ? t().create.noAgents : t().create.noMatch}</li>}
          >
            {(agent) => (
              <li>
                <input
                  type="checkbox"
                  id={`at-agent-${agent.id}`}
                  checked={chosen().includes(agent.id)}
                  disabled={!chosen().includes(agent.id) && chosen().length >= LIMITS.membersMax}
                  onChange={(e) => toggle(agent.id, e.currentTarget.checked)}
                />
                <div>
                  <label for={`at-agent-${agent.id}`}>{agent.title}</label>
                  <span class="desc">{agent.description}</span>
                </div>
              </li>
            )}
          </For>
        </ul>
      </Show>
      <div class="row">
        <button type="button" class="link" onClick={loadCatalog}>
          {t().create.reloadAgents}
        </button>
        <button
          type="submit"
          class="primary"
          disabled={busy() || catalogState() !== 'ready' || chosen().length < LIMITS.membersMin}
        >
          {t().create.createTeam}
        </button>
      </div>
    </form>
  );
}
