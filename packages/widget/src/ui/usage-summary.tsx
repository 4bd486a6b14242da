import { For, Show } from 'solid-js';
import type { UsageView } from '../team-feed.js';
import { formatUsage } from '../usage-format.js';
import { useWidget } from './context.js';
import { useTeam } from './team-context.js';

/** The team's tokens and cost in the summary, each member's when opened. */
export function UsageSummary() {
  const { t, lang } = useWidget();
  const team = useTeam();
  const format = (usage: UsageView) => formatUsage(usage, lang(), t());
  const both = (usage: UsageView | undefined) => (usage ? `${format(usage).line} · ${format(usage).detail}` : '—');
  return (
    <Show when={team.usage()}>
      {(usage) => (
        <details class="usage">
          <summary>
            {t().usage.title}: {format(usage().team).line}
          </summary>
          <dl>
            <dt>{t().usage.team}</dt>
            <dd>{format(usage().team).detail}</dd>
            <For each={team.team().members}>
              {(member) => (
                <>
                  <dt>{member.name}</dt>
                  <dd>{both(usage().members[member.id])}</dd>
                </>
              )}
            </For>
          </dl>
        </details>
      )}
    </Show>
  );
}
