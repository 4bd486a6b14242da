import { createSignal, Show } from 'solid-js';
import { DELETE_TEAM, errorCode } from '../api.js';
import { useWidget } from './context.js';
import { useTeam } from './team-context.js';

/** The team's name, goal and status (always shown, announced when it changes) and the Manage menu. */
export function TeamHeader(props: { onDeleted: () => void; onRefresh: () => void }) {
  const { api, t, setStatus } = useWidget();
  const team = useTeam();
  const [confirming, setConfirming] = createSignal(false);
  let menu: HTMLDetailsElement | undefined;
  const closeMenu = () => menu?.removeAttribute('open');

  const remove = async () => {
    setStatus('');
    try {
      await api.mutate(DELETE_TEAM, { input: { teamId: team.teamId } });
      team.feed.stop();
      props.onDeleted();
    } catch (error) {
      setStatus(t().common.error(errorCode(error)));
    } finally {
      setConfirming(false);
    }
  };

  return (
    <>
      <div class="head">
        <div class="grow">
          <h2 id="at-team-name">{team.team().name}</h2>
          <p class="goal">{team.team().goal}</p>
        </div>
        <div class="row">
          <p class={`state ${team.status()}`} role="status">
            <span class="sr">{t().header.teamStatus} </span>
            {t().header.states[team.status()] ?? team.status()}
          </p>
          <details class="menu" ref={menu}>
            <summary>{t().header.manage}</summary>
            <div>
              <button
                type="button"
                onClick={() => {
                  closeMenu();
                  void team.reconnect();
                }}
              >
                {t().header.reconnect}
              </button>
              <button
                type="button"
                onClick={() => {
                  setStatus('');
                  closeMenu();
                  props.onRefresh();
                }}
              >
                {t().header.refresh}
              </button>
              <button type="button" class="danger" onClick={() => setConfirming(true)}>
                {t().header.deleteTeam}
              </button>
            </div>
          </details>
        </div>
      </div>
      <Show when={confirming()}>
        <div class="dialog" role="alertdialog" aria-labelledby="at-confirm">
          <p id="at-confirm">{t().header.confirmDelete}</p>
          <div class="row">
            <button type="button" class="danger" onClick={remove}>
              {t().header.confirm}
            </button>
            <button type="button" onClick={() => setConfirming(false)} ref={(el) => queueMicrotask(() => el.focus())}>
              {t().header.cancel}
            </button>
          </div>
        </div>
      </Show>
    </>
  );
}
