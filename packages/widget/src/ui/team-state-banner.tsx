import { createSignal, Show } from 'solid-js';
import { useWidget } from './context.js';
import { useTeam } from './team-context.js';

/**
 * What a team that is not READY means for the person: still being set up, disconnected (with
 * Reconnect right there) or closed. The header's status line announces the change itself.
 */
export function TeamStateBanner() {
  const { t } = useWidget();
  const team = useTeam();
  const [busy, setBusy] = createSignal(false);
  const reconnect = async () => {
    setBusy(true);
    try {
      await team.reconnect();
    } finally {
      setBusy(false);
    }
  };
  return (
    <Show when={t().banner[team.status()]}>
      {(note) => (
        <div class={`banner ${team.status()}`}>
          <p>{note()}</p>
          <Show when={team.status() === 'DISCONNECTED'}>
            <button type="button" class="primary" disabled={busy()} onClick={reconnect}>
              {t().header.reconnect}
            </button>
          </Show>
        </div>
      )}
    </Show>
  );
}
