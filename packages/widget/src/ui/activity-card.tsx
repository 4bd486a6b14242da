import { onMount, Show } from 'solid-js';
import { CANCEL_JOB, errorCode } from '../api.js';
import { type JobView, type ReceiptView, TERMINAL, type UsageView } from '../team-feed.js';
import { formatUsage } from '../usage-format.js';
import { createAnswerDraft } from './answer-draft.js';
import { useWidget } from './context.js';
import { JobLive } from './job-live.js';
import { useTeam } from './team-context.js';

/** A turn's tokens and cost, shown once it made model calls (scripted turns make none). */
function UsageLine(props: { usage: UsageView | null | undefined }) {
  const { t, lang } = useWidget();
  return (
    <Show when={props.usage?.calls ? props.usage : null}>
      {(usage) => (
        <p class="muted usage" title={formatUsage(usage(), lang(), t()).detail}>
          {formatUsage(usage(), lang(), t()).line}
        </p>
      )}
    </Show>
  );
}

/** Why a job stopped when a spending budget was used up (the error text says which budget). */
function BudgetNote(props: { code: string | null | undefined }) {
  const { t } = useWidget();
  return (
    <Show when={props.code === 'BUDGET_EXHAUSTED'}>
      <p class="status">{t().card.budget}</p>
    </Show>
  );
}

/**
 * One request paired with its result and, for a handoff, its receipt; a waiting question of
 * either is answered here. Agent text is rendered as text nodes only, never as HTML.
 */
export function ActivityCard(props: {
  job: JobView;
  receipt: ReceiptView | undefined;
  scrollBox: () => HTMLElement | undefined;
}) {
  const { api, t, setStatus } = useWidget();
  const team = useTeam();
  const draft = createAnswerDraft(props.job.id);
  const receiptDraft = createAnswerDraft(`receipt:${props.job.id}`);
  let el: HTMLElement | undefined;

  const from = () => props.job.requester.member?.name ?? t().common.you;
  const to = () => props.job.member?.name ?? '?';
  const label = (status: string) => t().common.status[status] ?? status;
  const time = () =>
    new Date(props.job.createdAt).toLocaleString(undefined, {
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
    });
  const receiptTarget = () => props.job.requester.member?.name ?? t().card.originalConversation;

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
      team.changed();
    } catch (error) {
      setStatus(t().common.error(errorCode(error)));
    }
  };

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
            {t().card.followUp} {[...parent().text].slice(0, 100).join('')}
          </p>
        )}
      </Show>
      <p class="text">{props.job.text}</p>
      <JobLive jobId={props.job.id} status={props.job.status} />
      <Show when={props.job.status === 'WAITING_INPUT' && props.job.input}>
        {(input) => (
          <Show when={team.chunk()}>
            {(chunk) => chunk().AnswerForm({ jobId: props.job.id, input: input(), asker: to(), draft })}
          </Show>
        )}
      </Show>
      <Show when={TERMINAL.has(props.job.status)}>
        <div class="result">
          <strong>{props.job.status === 'COMPLETED' ? t().card.resultTitle(to()) : label(props.job.status)}</strong>
          <BudgetNote code={props.job.errorCode} />
          <div>{props.job.result.text ?? props.job.error ?? t().card.resultMissing}</div>
        </div>
      </Show>
      <UsageLine usage={props.job.usage} />
      <Show when={props.receipt}>
        {(receipt) => (
          <div class="receipt" data-receipt-status={receipt().status}>
            <p class="muted">
              {receipt().status === 'COMPLETED'
                ? t().card.returnedTo(receiptTarget())
                : t().card.replyTo(receiptTarget(), label(receipt().status))}
              <Show when={receipt().error}> · {receipt().error}</Show>
            </p>
            <BudgetNote code={receipt().errorCode} />
            <JobLive jobId={receipt().id} status={receipt().status} />
            <Show when={receipt().status === 'WAITING_INPUT' && receipt().input}>
              {(input) => (
                <Show when={team.chunk()}>
                  {(chunk) =>
                    chunk().AnswerForm({
                      jobId: receipt().id,
                      input: input(),
                      asker: receiptTarget(),
                      draft: receiptDraft,
                    })
                  }
                </Show>
              )}
            </Show>
            <UsageLine usage={receipt().usage} />
          </div>
        )}
      </Show>
      <details>
        <summary>{t().card.details}</summary>
        <div class="row">
          <Show when={props.job.member}>
            {(member) => (
              <button type="button" class="link" onClick={(e) => team.openConversation(member(), e.currentTarget)}>
                {t().card.openConv}
              </button>
            )}
          </Show>
          <Show when={!TERMINAL.has(props.job.status) && team.status() !== 'CLOSED'}>
            <button type="button" class="danger" onClick={cancel}>
              {t().card.cancelTask}
            </button>
          </Show>
        </div>
      </details>
    </article>
  );
}
