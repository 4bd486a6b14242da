import { createEffect, createSignal, For, on, onMount, Show } from 'solid-js';
import { errorCode } from '../api.js';
import type { MessageView } from '../feed-views.js';
import { createRetryKey } from '../ids.js';
import { checkText, LIMITS } from '../limits.js';
import { useWidget } from './context.js';
import { useTeam } from './team-context.js';
import { MESSAGES_QUERY, SEND_MESSAGE } from './teamwork-queries.js';
import { teamworkStrings } from './teamwork-strings.js';
import { TEAMWORK_STYLES } from './teamwork-styles.js';

type MessagesPage = {
  team: {
    messages: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; edges: { node: MessageView }[] };
  } | null;
};

/**
 * The person's way to message members (`sendMessage`): pick members, write, choose quiet (read on
 * their next turn) or follow-up (a turn follows). Refusals (MAILBOX_FULL, TEAM_CLOSED, …) show
 * under the form; in a closed team the form is disabled. It also reads the team's message history
 * into the feed when it mounts and when updates are live again after polling (`teamEvents` bring
 * the new ones meanwhile), and carries the chunk's styles.
 */
export function MessageForm() {
  const { api, t, lang } = useWidget();
  const team = useTeam();
  const s = () => teamworkStrings(lang());
  const [to, setTo] = createSignal<string[]>([]);
  const [text, setText] = createSignal('');
  const [followUp, setFollowUp] = createSignal(true);
  const [problem, setProblem] = createSignal('');
  const [note, setNote] = createSignal('');
  const [busy, setBusy] = createSignal(false);
  const key = createRetryKey();
  const closed = () => team.status() === 'CLOSED';
  const active = () => team.team().members.filter((m) => team.memberStatus(m) !== 'RETIRED');

  /** Reads every page of `Team.messages` into the feed (known ids are replaced, not repeated). */
  const readHistory = async () => {
    let after: string | null = null;
    try {
      do {
        const data: MessagesPage = await api.query<MessagesPage>(MESSAGES_QUERY, { id: team.teamId, after });
        if (!data.team) return;
        for (const edge of data.team.messages.edges) team.feed.putMessage(edge.node);
        const page = data.team.messages.pageInfo;
        after = page.hasNextPage ? page.endCursor : null;
      } while (after !== null);
    } catch (error) {
      setProblem(t().common.error(errorCode(error)));
    }
  };
  onMount(readHistory);
  // Back from polling: the socket replays missed events, but not across RESUME_EXPIRED; read again.
  createEffect(on(team.feed.live, (now, before) => now === 'live' && before === 'polling' && readHistory()));

  const send = async (event: Event) => {
    event.preventDefault();
    if (busy()) return;
    setProblem('');
    setNote('');
    const value = text();
    const memberIds = to().filter((id) => active().some((m) => m.id === id));
    if (memberIds.length === 0) return setProblem(s().pick);
    const c = t().common;
    const label = s().message;
    const check = checkText(value, LIMITS.message);
    if (check === 'blank') return setProblem(c.blank(label));
    if (check === 'unstorable') return setProblem(c.unstorable(label));
    if (check) return setProblem(c.tooLong(label, LIMITS.message.chars, LIMITS.message.bytes));
    const delivery = followUp() ? 'FOLLOW_UP' : 'QUIET';
    const input = { teamId: team.teamId, memberIds, text: value, delivery };
    setBusy(true);
    try {
      const clientRequestId = key.keyFor(JSON.stringify(input));
      const data = await api.mutate<{ sendMessage: { message: MessageView } }>(SEND_MESSAGE, {
        input: { ...input, clientRequestId },
      });
      key.rotate();
      team.feed.putMessage(data.sendMessage.message);
      if (text() === value) setText('');
      setNote(s().sent);
    } catch (error) {
      const code = errorCode(error);
      setProblem(s().refused[code] ?? c.error(code));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="msgform" onSubmit={send} aria-label={s().form}>
      <style>{TEAMWORK_STYLES}</style>
      <details>
        <summary>{s().form}</summary>
        <fieldset disabled={closed()}>
          <Show when={closed()}>
            <p class="muted">{s().closed}</p>
          </Show>
          <fieldset class="opts">
            <legend class="eyebrow">{s().to}</legend>
            <For each={active()}>
              {(member) => (
                <label>
                  <input
                    type="checkbox"
                    checked={to().includes(member.id)}
                    onChange={(e) =>
                      setTo((ids) =>
                        e.currentTarget.checked ? [...ids, member.id] : ids.filter((id) => id !== member.id),
                      )
                    }
                  />
                  {member.name}
                </label>
              )}
            </For>
          </fieldset>
          <label for="at-team-message">{s().message}</label>
          <textarea
            id="at-team-message"
            rows={2}
            value={text()}
            aria-describedby={problem() ? 'at-team-message-e' : undefined}
            onInput={(e) => setText(e.currentTarget.value)}
          />
          <div class="opts" role="radiogroup" aria-label={s().deliveryLabel}>
            <label>
              <input type="radio" name="at-delivery" checked={!followUp()} onChange={() => setFollowUp(false)} />
              {s().quiet}
            </label>
            <label>
              <input type="radio" name="at-delivery" checked={followUp()} onChange={() => setFollowUp(true)} />
              {s().followUp}
            </label>
          </div>
          <Show when={problem()}>
            <p role="alert" class="status" id="at-team-message-e">
              {problem()}
            </p>
          </Show>
          <p class="muted" role="status">
            {note()}
          </p>
          <button type="submit" class="primary" disabled={busy()}>
            {s().send}
          </button>
        </fieldset>
      </details>
    </form>
  );
}
