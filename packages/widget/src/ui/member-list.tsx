import { createMemo, For } from 'solid-js';
import { useWidget } from './context.js';
import { StatusLegend } from './status-legend.js';
import { useTeam } from './team-context.js';
import { UsageSummary } from './usage-summary.js';

/**
 * The roster: each member's status dot (named for screen readers), a mention button and the way
 * into its conversation; then the legend, how many questions wait for the person, and usage.
 */
export function MemberList(props: { onMention: (memberId: string) => void }) {
  const { t } = useWidget();
  const team = useTeam();
  const feed = team.feed;
  /** Requests and receipts waiting for the person's answer. */
  const waiting = createMemo(
    () =>
      feed
        .order()
        .flatMap((id) => [feed.request(id)?.status, feed.receipt(id)?.status])
        .filter((status) => status === 'WAITING_INPUT').length,
  );
  return (
    <div class="side">
      <h3 class="eyebrow" id="at-members">
        {t().members.title}
      </h3>
      <ul class="members" aria-labelledby="at-members">
        <For each={team.team().members}>
          {(member) => {
            const state = () => team.memberStatus(member);
            return (
              <li>
                <span
                  class={`dot ${state()}`}
                  role="img"
                  aria-label={t().members.state(member.name, t().members.states[state()] ?? state())}
                />
                <button
                  type="button"
                  class="mention"
                  aria-label={t().members.mention(member.name)}
                  onClick={() => props.onMention(member.id)}
                >
                  {member.name}
                </button>
                <button
                  type="button"
                  class="open"
                  aria-label={t().members.openConversation(member.name)}
                  onClick={(e) => team.openConversation(member, e.currentTarget)}
                >
                  ↗
                </button>
              </li>
            );
          }}
        </For>
      </ul>
      <StatusLegend />
      <p class="muted" aria-live="polite">
        {t().members.inbox(waiting())}
      </p>
      <UsageSummary />
    </div>
  );
}
