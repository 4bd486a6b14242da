import { Show } from 'solid-js';
import { useWidget } from './context.js';
import { useTeam } from './team-context.js';
import { teamworkStrings } from './teamwork-strings.js';

/**
 * A team message in the activity feed: who wrote it to whom, quiet or follow-up, and its text
 * (rendered as a text node, never as HTML).
 */
export function MessageItem(props: { id: string }) {
  const { t, lang } = useWidget();
  const team = useTeam();
  const s = () => teamworkStrings(lang());
  // Like a card: a new item scrolls the feed to it when the person was reading the end already.
  // (After insertion, from the ref: Solid's onMount would add an export to widget.js for this chunk.)
  const follow = (el: HTMLElement) =>
    queueMicrotask(() => {
      const box = el.parentElement;
      if (box && box.scrollHeight - box.scrollTop - box.clientHeight < 60 + el.offsetHeight) {
        box.scrollTop = box.scrollHeight;
      }
    });
  return (
    <Show when={team.feed.message(props.id)}>
      {(message) => (
        <article class="card msg" ref={follow} data-message-id={props.id} aria-label={s().message}>
          <header>
            <span class="route">
              {message().from?.name ?? t().common.you} →{' '}
              {message()
                .to.map((m) => `@${m.name}`)
                .join(', ')}
            </span>
            <span class="row">
              <time class="muted" datetime={message().createdAt}>
                {new Date(message().createdAt).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })}
              </time>
              <span class="badge">{s().delivery[message().delivery] ?? message().delivery}</span>
            </span>
          </header>
          <p class="text">{message().text}</p>
        </article>
      )}
    </Show>
  );
}
