import { For } from 'solid-js';
import { useWidget } from './context.js';

/** What each member status dot means (shape and colour, so it does not rest on colour alone). */
export function StatusLegend() {
  const { t } = useWidget();
  return (
    <details class="legend">
      <summary>{t().members.legend}</summary>
      <ul>
        <For each={Object.entries(t().members.states)}>
          {([status, label]) => (
            <li>
              <span class={`dot ${status}`} aria-hidden="true" />
              {label}
            </li>
          )}
        </For>
      </ul>
    </details>
  );
}
