import { createEffect, createMemo, createSignal, For, Show } from 'solid-js';
import { errorCode } from '../api.js';
import { createRetryKey } from '../ids.js';
import { checkText, LIMITS } from '../limits.js';
import { useWidget } from './context.js';

/** A member the composer can route to. */
export interface MemberOption {
  id: string;
  name: string;
  agent: { title: string; name: string };
}

const ALL = '@all';

/**
 * What is typed and for whom, by team: switching teams makes the workspace anew, and a person who
 * looks at another team mid-sentence expects the draft back (in memory only, for this page).
 */
const drafts = new Map<string, { text: string; recipients: string[] }>();

/**
 * The message box: `@` opens a member picker, chips (not plain names) decide who receives the
 * request, Enter adds a newline and Ctrl/Cmd+Enter sends one request per chosen member.
 */
export function Composer(props: {
  teamId: string;
  members: MemberOption[];
  recipients: string[];
  setRecipients: (ids: string[]) => void;
  send: (memberIds: string[], text: string, clientRequestId: string) => Promise<void>;
}) {
  const { t, setStatus } = useWidget();
  const kept = drafts.get(props.teamId);
  const [text, setText] = createSignal(kept?.text ?? '');
  if (kept && props.recipients.length === 0) props.setRecipients(kept.recipients);
  const keep = () => drafts.set(props.teamId, { text: text(), recipients: props.recipients });
  createEffect(keep);
  const [picker, setPicker] = createSignal<{ query: string; from: number; to: number } | null>(null);
  const [active, setActive] = createSignal(0);
  const [sending, setSending] = createSignal(false);
  let composing = false;
  let area: HTMLTextAreaElement | undefined;
  const draftKey = createRetryKey();

  const options = createMemo(() => {
    const p = picker();
    if (!p) return [];
    const q = p.query.toLowerCase();
    const members = props.members
      .filter((m) => [m.name, m.agent.title, m.agent.name].some((f) => f.toLowerCase().includes(q)))
      .map((m) => ({ id: m.id, label: `@${m.name}` }));
    return 'all'.startsWith(q) || t().composer.everyone.toLowerCase().includes(q)
      ? [...members, { id: ALL, label: `${ALL} · ${t().composer.everyone}` }]
      : members;
  });

  const detect = () => {
    if (composing || !area) return;
    const caret = area.selectionStart ?? text().length;
    const match = /(^|\s)@([^\s@]*)$/.exec(text().slice(0, caret));
    if (match) {
      setPicker({ query: match[2] ?? '', from: caret - (match[2] ?? '').length - 1, to: caret });
      setActive(0);
    } else setPicker(null);
  };

  const choose = (id: string) => {
    const p = picker();
    if (p && p.to > p.from) setText((value) => value.slice(0, p.from) + value.slice(p.to));
    const ids = id === ALL ? props.members.map((m) => m.id) : [id];
    props.setRecipients([...new Set([...props.recipients, ...ids])]);
    setPicker(null);
    area?.focus();
  };

  const send = async () => {
    if (sending()) return;
    setStatus('');
    if (props.recipients.length === 0) {
      setPicker({ query: '', from: 0, to: 0 });
      setActive(0);
      return;
    }
    const value = text();
    const problem = checkText(value, LIMITS.task);
    if (problem === 'blank') return setStatus(t().common.blank(t().composer.task));
    if (problem === 'unstorable') return setStatus(t().common.unstorable(t().composer.task));
    if (problem) return setStatus(t().common.tooLong(t().composer.task, LIMITS.task.chars, LIMITS.task.bytes));
    const ids = [...props.recipients];
    const fingerprint = JSON.stringify([value, [...ids].sort()]);
    setSending(true);
    try {
      await props.send(ids, value, draftKey.keyFor(fingerprint));
      draftKey.rotate();
      // Clear only what the person has not changed while the request was on its way.
      if (text() === value) setText('');
      if (JSON.stringify([...props.recipients].sort()) === JSON.stringify([...ids].sort())) props.setRecipients([]);
      // Also when the person switched teams meanwhile (this composer is gone, its effect with it).
      keep();
    } catch (error) {
      setStatus(t().common.error(errorCode(error)));
    } finally {
      setSending(false);
    }
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (composing || event.isComposing) return;
    const list = options();
    if (picker() && list.length > 0) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        const step = event.key === 'ArrowDown' ? 1 : -1;
        setActive((i) => (i + step + list.length) % list.length);
        return;
      }
      if (event.key === 'Enter') {
        event.preventDefault();
        const option = list[active()];
        if (option) choose(option.id);
        return;
      }
    }
    if (event.key === 'Escape' && picker()) {
      event.preventDefault();
      setPicker(null);
      return;
    }
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void send();
    }
  };

  const nameOf = (id: string) => props.members.find((m) => m.id === id)?.name ?? id;

  return (
    <div class="composer">
      <div class="chips">
        <For each={props.recipients}>
          {(id) => (
            <button
              type="button"
              class="chip"
              aria-label={t().composer.removeRecipient(nameOf(id))}
              onClick={() => props.setRecipients(props.recipients.filter((x) => x !== id))}
            >
              @{nameOf(id)} ×
            </button>
          )}
        </For>
      </div>
      <Show when={picker() && options().length > 0}>
        <div class="picker" role="listbox" id="at-picker" aria-label={t().composer.chooseMembers}>
          <For each={options()}>
            {(option, i) => (
              <div
                role="option"
                tabIndex={-1}
                id={`at-opt-${i()}`}
                aria-selected={i() === active()}
                onMouseDown={(e) => {
                  e.preventDefault();
                  choose(option.id);
                }}
              >
                {option.label}
              </div>
            )}
          </For>
        </div>
      </Show>
      <label for="at-message" class="sr">
        {t().composer.message}
      </label>
      <textarea
        id="at-message"
        ref={area}
        rows={3}
        placeholder={t().composer.placeholder}
        value={text()}
        role="combobox"
        aria-expanded={picker() !== null && options().length > 0}
        aria-controls="at-picker"
        aria-autocomplete="list"
        aria-activedescendant={picker() ? `at-opt-${active()}` : undefined}
        onInput={(e) => {
          setText(e.currentTarget.value);
          detect();
        }}
        onClick={detect}
        onKeyDown={onKeyDown}
        onCompositionStart={() => {
          composing = true;
          setPicker(null);
        }}
        onCompositionEnd={() => {
          composing = false;
          detect();
        }}
      />
      <div class="foot">
        <button
          type="button"
          aria-haspopup="listbox"
          aria-expanded={picker() !== null}
          onClick={() => {
            setPicker(picker() ? null : { query: '', from: 0, to: 0 });
            setActive(0);
            area?.focus();
          }}
        >
          {t().composer.chooseMembers}
        </button>
        <span class="muted hint">{t().composer.sendHint}</span>
        <button type="button" class="primary" disabled={sending()} onClick={send}>
          {t().composer.send}
        </button>
      </div>
    </div>
  );
}
