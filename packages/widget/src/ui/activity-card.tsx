import { createEffect, createMemo, createSignal, onCleanup, onMount, Show } from 'solid-js';
import { CANCEL_JOB, errorCode, JOB_PROGRESS, RESPOND } from '../api.js';
import { createRetryKey } from '../ids.js';
import { checkText, LIMITS, utf8Bytes } from '../limits.js';
import { type JobView, type ReceiptView, TERMINAL } from '../team-feed.js';
import { useWidget } from './context.js';

/**
 * One request paired with its result and, for a handoff, its receipt. Agent text is rendered as
 * text nodes only, never as HTML.
 */
export function ActivityCard(props: {
  job: JobView;
  receipt: ReceiptView | undefined;
  onChange: () => void;
  scrollBox: () => HTMLElement | undefined;
}) {
  const { api, t, setStatus, openConversation } = useWidget();
  const [streamed, setStreamed] = createSignal('');
  const [answer, setAnswer] = createSignal('');
  const [answerError, setAnswerError] = createSignal('');
  const [busy, setBusy] = createSignal(false);
  const respondKey = createRetryKey();
  let el: HTMLElement | undefined;

  const from = () => props.job.requester.member?.name ?? t().you;
  const to = () => props.job.member?.name ?? '?';
  const label = (status: string) => t().status[status] ?? status;
  const time = () =>
    new Date(props.job.createdAt).toLocaleString(undefined, {
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
    });

  // Live text while the job runs; subscribed from the queue on so no early delta is missed.
  const streaming = createMemo(() => ['QUEUED', 'RUNNING', 'RESUMING'].includes(props.job.status));
  createEffect(() => {
    if (!streaming()) return;
    const stop = api.live.subscribe(
      JOB_PROGRESS,
      { jobId: props.job.id },
      {
        next: (data) => {
          const delta = (data.jobProgress as { textDelta: string | null }).textDelta;
          if (delta) setStreamed((text) => text + delta);
        },
        error: () => {},
        complete: () => {},
      },
    );
    onCleanup(stop);
  });

  onMount(() => {
    const box = props.scrollBox();
    if (box && el && box.scrollHeight - box.scrollTop - box.clientHeight < 60 + el.offsetHeight) {
      box.scrollTop = box.scrollHeight;
    }
  });

  const cancel = async () => {
    setStatus('');
    try {
      await api.mutate(CANCEL_JOB, { input: { jobId: props.job.id } });
      props.onChange();
    } catch (error) {
      setStatus(t().error(errorCode(error)));
    }
  };

  const submit = async () => {
    if (busy()) return;
    setAnswerError('');
    setStatus('');
    const text = answer();
    let response: unknown = text;
    if (props.job.input?.kind === 'INTERRUPT') {
      try {
        response = JSON.parse(text);
      } catch {
        return setAnswerError(t().invalidJson);
      }
      if (utf8Bytes(JSON.stringify(response)) > LIMITS.interruptBytes) {
        return setAnswerError(t().jsonTooLong(LIMITS.interruptBytes));
      }
    } else {
      const problem = checkText(text, LIMITS.answer);
      if (problem === 'blank') return setAnswerError(t().blank(t().yourAnswer));
      if (problem === 'unstorable') return setAnswerError(t().unstorable(t().yourAnswer));
      if (problem) return setAnswerError(t().tooLong(t().yourAnswer, LIMITS.answer.chars, LIMITS.answer.bytes));
    }
    setBusy(true);
    try {
      const clientRequestId = respondKey.keyFor(`${props.job.id}\n${text}`);
      await api.mutate(RESPOND, { input: { jobId: props.job.id, response, clientRequestId } });
      respondKey.rotate();
      setAnswer('');
      props.onChange();
    } catch (error) {
      setAnswerError(t().error(errorCode(error)));
    } finally {
      setBusy(false);
    }
  };

  const receiptTarget = () => props.job.requester.member?.name ?? t().originalConversation;

  return (
    <article class="card" ref={el} data-job-id={props.job.id} data-status={props.job.status}>
      <header>
        <span class="route">
          {from()} → @{to()}
        </span>
        <span class="row">
          <time class="muted" datetime={props.job.createdAt}>
            {time()}
          </time>
          <span class={`badge ${props.job.status}`}>{label(props.job.status)}</span>
        </span>
      </header>
      <Show when={props.job.parent}>
        {(parent) => (
          <p class="muted">
            {t().followUp} {[...parent().text].slice(0, 100).join('')}
          </p>
        )}
      </Show>
      <p class="text">{props.job.text}</p>
      <Show when={props.job.status === 'RUNNING' && streamed()}>
        <p class="text muted" aria-live="polite">
          {streamed()}
        </p>
      </Show>
      <Show when={TERMINAL.has(props.job.status)}>
        <div class="result">
          <strong>{props.job.status === 'COMPLETED' ? t().resultTitle(to()) : label(props.job.status)}</strong>
          <div>{props.job.result.text ?? props.job.error ?? t().resultMissing}</div>
        </div>
      </Show>
      <Show when={props.receipt}>
        {(receipt) => (
          <p class="muted">
            {receipt().status === 'COMPLETED'
              ? t().returnedTo(receiptTarget())
              : t().replyTo(receiptTarget(), label(receipt().status))}
            <Show when={receipt().error}> · {receipt().error}</Show>
          </p>
        )}
      </Show>
      <details>
        <summary>{t().details}</summary>
        <div class="row">
          <Show when={props.job.conversationId ?? props.job.member?.conversationId}>
            {(conversation) => (
              <button type="button" class="link" onClick={() => openConversation(conversation(), to())}>
                {t().openConv}
              </button>
            )}
          </Show>
          <Show when={!TERMINAL.has(props.job.status)}>
            <button type="button" class="danger" onClick={cancel}>
              {t().cancelTask}
            </button>
          </Show>
        </div>
        <Show when={props.job.status === 'WAITING_INPUT' && props.job.input}>
          {(input) => (
            <div>
              <Show when={input().question}>
                <p class="text">{input().question}</p>
              </Show>
              <Show when={input().kind === 'INTERRUPT' && input().payload != null}>
                <pre class="result">{JSON.stringify(input().payload, null, 2)}</pre>
              </Show>
              <label for={`at-answer-${props.job.id}`}>
                {input().kind === 'INTERRUPT' ? t().jsonAnswer : t().yourAnswer}
              </label>
              <textarea
                id={`at-answer-${props.job.id}`}
                rows={3}
                value={answer()}
                onInput={(e) => setAnswer(e.currentTarget.value)}
              />
              <Show when={answerError()}>
                <p role="alert" class="status">
                  {answerError()}
                </p>
              </Show>
              <button type="button" class="primary" disabled={busy()} onClick={submit}>
                {t().submit}
              </button>
            </div>
          )}
        </Show>
      </details>
    </article>
  );
}
