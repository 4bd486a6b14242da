import { Show } from 'solid-js';
import type { ConversationMessageView } from '../conversation-pages.js';
import { useWidget } from './context.js';

/**
 * One message of a conversation: a turn's input, an answer, a tool call with its arguments, or a
 * tool's result (collapsed: results run to 24,000 bytes of JSON). Text only, never HTML.
 */
export function ConversationEntry(props: { message: ConversationMessageView }) {
  const { t } = useWidget();
  const m = () => props.message;
  const label = () => {
    const c = t().conversation;
    const tool = m().toolName;
    if (m().role === 'TOOL') return c.toolResult(tool ?? '?');
    return tool ? c.toolCall(tool) : c[m().role === 'USER' ? 'USER' : 'ASSISTANT'];
  };
  return (
    <li class={`msg ${m().role}${m().toolName ? ' call' : ''}`}>
      <Show
        when={m().role === 'TOOL'}
        fallback={
          <>
            <p class="who">{label()}</p>
            <p class={m().toolName ? 'text code' : 'text'}>{m().text}</p>
          </>
        }
      >
        <details>
          <summary class="who">{label()}</summary>
          <p class="text code">{m().text}</p>
        </details>
      </Show>
    </li>
  );
}
