import { createMemo, For, type JSX, Show } from 'solid-js';
import { useWidget } from './context.js';
import { useTeam } from './team-context.js';

/**
 * The roster: each member's status dot (named for screen readers), a mention button, the lead and
 * each role, and the way into its conversation; then how many questions wait for the
 * person, then `children` (the legend, usage and budget: the teamwork chunk). The role is also the
 * mention button's title (its description, and the whole text where the roster cuts it). Mentions
 * are off in a closed team and for the retired.
 */
export function MemberList(props: { onMention: (memberId: string) => void; children?: JSX.Element }) {
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
            const name = member.isLead ? t().members.lead(member.name) : member.name;
            return (
              <li>
                <span
                  class={`dot ${state()}`}
                  role="img"
                  aria-label={t().members.state(name, t().members.states[state()] ?? state())}
                />
                <button
                  type="button"
                  class="mention"
                  aria-label={t().members.mention(name)}
                  title={member.role ?? undefined}
                  disabled={state() === 'RETIRED' || team.status() === 'CLOSED'}
                  onClick={() => props.onMention(member.id)}
                >
                  {member.name}
                  <Show when={member.isLead}>
                    <b class="lead">{t().members.leadBadge}</b>
                  </Show>
                  <Show when={member.role}>
                    <small class="muted role">{member.role}</small>
                  </Show>
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
      <p class="muted" aria-live="polite">
        {t().members.inbox(waiting())}
      </p>
      {props.children}
    </div>
  );
}
