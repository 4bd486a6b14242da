import { createEffect, createSignal, ErrorBoundary, For, onMount, Show } from 'solid-js';
import { errorCode, TEAMS_QUERY } from '../api.js';
import { useWidget } from './context.js';
import { createLazyView } from './lazy-view.js';
import { Workspace } from './workspace.js';

interface TeamItem {
  id: string;
  name: string;
}

/**
 * Remembers the last opened team id for this endpoint so reopening the page reopens it. Only the
 * id is stored (never the token); storage that throws (sandboxed frames) is simply not used.
 */
function rememberLastTeam(endpoint: string) {
  const key = `agent-teams-widget:last-team:${endpoint}`;
  return {
    read: (): string | null => {
      try {
        return localStorage.getItem(key);
      } catch {
        return null;
      }
    },
    write: (id: string | null) => {
      try {
        if (id) localStorage.setItem(key, id);
        else localStorage.removeItem(key);
      } catch {
        // Storage unavailable: the newest team opens instead.
      }
    },
  };
}

/** The whole widget: teams navigation, the create form and the team workspace. */
export function App(props: { initialTeam?: string | undefined; endpoint: string }) {
  const { api, t, setStatus } = useWidget();
  const [teams, setTeams] = createSignal<TeamItem[]>([]);
  const [selected, setSelected] = createSignal<string | null>(null);
  const [view, setView] = createSignal<'loading' | 'create' | 'team'>('loading');
  const lastTeam = rememberLastTeam(props.endpoint);
  // Most visits open a team; the create form is a chunk of its own (docs/decisions/0080).
  const form = createLazyView(
    () => import('./create-form.js').then((chunk) => chunk.CreateForm),
    (error) => setStatus(t().common.error(errorCode(error))),
  );
  createEffect(() => {
    if (view() === 'create') form.load();
  });

  const loadTeams = async () => {
    const data = await api.query<{ viewer: { teams: { edges: { node: TeamItem }[] } } }>(TEAMS_QUERY);
    const list = data.viewer.teams.edges.map((edge) => edge.node);
    setTeams(list);
    return list;
  };

  onMount(async () => {
    try {
      const list = await loadTeams();
      const wanted = [props.initialTeam, lastTeam.read()].map((id) => list.find((team) => team.id === id));
      const first = wanted[0] ?? wanted[1] ?? list[0];
      if (first) open(first.id);
      else setView('create');
    } catch (error) {
      setStatus(t().common.error(errorCode(error)));
      setView('create');
    }
  });

  const open = (id: string) => {
    lastTeam.write(id);
    setSelected(id);
    setView('team');
  };

  return (
    <div class="layout">
      <nav aria-label={t().nav.yourTeams}>
        <p class="eyebrow">{t().nav.yourTeams}</p>
        <For each={teams()} fallback={<p class="muted">{t().nav.teamsEmpty}</p>}>
          {(team) => (
            <button
              type="button"
              class="team-btn"
              aria-current={view() === 'team' && selected() === team.id ? 'page' : undefined}
              onClick={() => {
                setStatus('');
                open(team.id);
              }}
            >
              <span class="avatar" aria-hidden="true">
                {[...team.name][0]?.toUpperCase()}
              </span>
              <span>{team.name}</span>
            </button>
          )}
        </For>
        <button
          type="button"
          class="new"
          onClick={() => {
            setStatus('');
            setView('create');
            form.load();
          }}
        >
          {t().nav.newTeam}
        </button>
        <p class="tip">{t().nav.tip}</p>
      </nav>
      <main>
        <ErrorBoundary fallback={(error) => <p role="alert">{String(error?.message ?? error)}</p>}>
          <Show when={view() === 'create' && form.view()}>
            {(view) => {
              const CreateForm = view();
              return (
                <CreateForm
                  onCreated={async (id) => {
                    await loadTeams().catch(() => {});
                    open(id);
                  }}
                />
              );
            }}
          </Show>
          <Show when={view() === 'team' && selected()} keyed>
            {(id) => (
              <Workspace
                teamId={id}
                onDeleted={async () => {
                  const list = await loadTeams().catch(() => teams());
                  setTeams(list.filter((team) => team.id !== id));
                  lastTeam.write(null);
                  setSelected(null);
                  setView('create');
                }}
              />
            )}
          </Show>
        </ErrorBoundary>
        <Show when={view() === 'loading' || (view() === 'create' && !form.view())}>
          <p class="muted">…</p>
        </Show>
      </main>
    </div>
  );
}
