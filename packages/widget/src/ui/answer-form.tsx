import { createSignal, Show } from 'solid-js';
import { errorCode, RESPOND } from '../api.js';
import { createRetryKey } from '../ids.js';
import { checkText, LIMITS, utf8Bytes } from '../limits.js';
import type { InputView } from '../team-feed.js';
import type { AnswerDraft } from './answer-draft.js';
import { useWidget } from './context.js';
import { useTeam } from './team-context.js';

export { type AnswerDraft, createAnswerDraft } from './answer-draft.js';

/**
 * A waiting question with its answer box, on the card of the request or receipt that asks it.
 *
 * @remarks The answer carries the `requestId` of the question the person began answering (pinned
 * at the first keystroke and kept with the draft), so when the question was answered elsewhere
 * and the agent asked another one meanwhile, the server refuses it with INPUT_CHANGED instead of
 * applying it to a question the person never read; the form explains, keeps the draft, and the
 * next submit answers the question now shown.
 */
export function AnswerForm(props: { jobId: string; input: InputView; asker: string; draft: AnswerDraft }) {
  const { api, t, setStatus } = useWidget();
  const { changed, status } = useTeam();
  const [problem, setProblem] = createSignal('');
  const [busy, setBusy] = createSignal(false);
  const respondKey = createRetryKey();
  const answer = () => props.draft.text();
  const id = () => `at-answer-${props.jobId}`;
  const interrupt = () => props.input.kind === 'INTERRUPT';

  /** The value to send, or null after showing why it cannot be sent. */
  const checked = (text: string): { value: unknown } | null => {
    const a = t().answer;
    if (interrupt()) {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        setProblem(a.invalidJson);
        return null;
      }
      if (utf8Bytes(JSON.stringify(value)) <= LIMITS.interruptBytes) return { value };
      setProblem(a.jsonTooLong(LIMITS.interruptBytes));
      return null;
    }
    const result = checkText(text, LIMITS.answer);
    if (result === null) return { value: text };
    const c = t().common;
    setProblem(
      result === 'blank'
        ? c.blank(a.yourAnswer)
        : result === 'unstorable'
          ? c.unstorable(a.yourAnswer)
          : c.tooLong(a.yourAnswer, LIMITS.answer.chars, LIMITS.answer.bytes),
    );
    return null;
  };

  const submit = async () => {
    if (busy()) return;
    setProblem('');
    setStatus('');
    const text = answer();
    const response = checked(text);
    if (!response) return;
    const inputRequestId = props.draft.pinned ?? props.input.requestId;
    setBusy(true);
    try {
      const clientRequestId = respondKey.keyFor(`${props.jobId}\n${inputRequestId}\n${text}`);
      const input = { jobId: props.jobId, response: response.value, clientRequestId, inputRequestId };
      await api.mutate(RESPOND, { input });
      respondKey.rotate();
      props.draft.pinned = null;
      props.draft.setText('');
      changed();
    } catch (error) {
      const code = errorCode(error);
      // The next submit answers the question shown by then (the update is on its way).
      if (code === 'INPUT_CHANGED') props.draft.pinned = null;
      setProblem(t().answer.refused[code] ?? t().common.error(code));
      changed();
    } finally {
      setBusy(false);
    }
  };

  return (
    <fieldset class="ask" disabled={status() === 'CLOSED'}>
      <legend class="eyebrow">{t().answer.questionFrom(props.asker)}</legend>
      <Show when={props.input.question}>
        <p class="text">{props.input.question}</p>
      </Show>
      <Show when={interrupt() && props.input.payload != null}>
        <pre class="result">{JSON.stringify(props.input.payload, null, 2)}</pre>
      </Show>
      <label for={id()}>{interrupt() ? t().answer.jsonAnswer : t().answer.yourAnswer}</label>
      <textarea
        id={id()}
        rows={3}
        value={answer()}
        aria-describedby={problem() ? `${id()}-e` : undefined}
        onInput={(e) => {
          const text = e.currentTarget.value;
          props.draft.setText(text);
          props.draft.pinned = text === '' ? null : (props.draft.pinned ?? props.input.requestId);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            void submit();
          }
        }}
      />
      <Show when={problem()}>
        <p role="alert" class="status" id={`${id()}-e`}>
          {problem()}
        </p>
      </Show>
      <button type="button" class="primary" disabled={busy()} onClick={submit}>
        {t().answer.submit}
      </button>
    </fieldset>
  );
}
