import { createEffect, createMemo, For, on, onMount, Show } from 'solid-js';
import { createConversationPages } from '../conversation-pages.js';
import { STREAMING } from '../job-progress.js';
import { formatUsage } from '../usage-format.js';
import { useWidget } from './context.js';
import { ConversationEntry } from './conversation-entry.js';
import { CONVERSATION_STYLES } from './conversation-styles.js';
import { JobLive } from './job-live.js';
import { type MemberRef, useTeam } from './team-context.js';

/**
 * A member's conversation in a modal dialog named for the member: every turn's input, answers,
 * tool calls and results, paged, and what the member is doing right now while it runs.
 *
 * @remarks Opened with `showModal()` (focus moves in, the page behind is inert, Escape closes);
 * where that is missing it opens in place and Escape still closes. The caller returns focus to
 * the button that opened it. New messages are read when one of the member's jobs changes state
 * or calls a tool, once the person has paged to the end.
 */
export function ConversationDialog(props: { member: MemberRef; onClose: () => void }) {
  const { api, t, lang } = useWidget();
  const team = useTeam();
  const feed = team.feed;
  const pages = createConversationPages(api, props.member.id);
  let dialog: HTMLDialogElement | undefined;
  let close: HTMLButtonElement | undefined;

  /** The member's turns in the feed: requests it runs and receipts delivered to it. */
  const turns = createMemo(() =>
    feed.order().flatMap((id) => {
      const request = feed.request(id);
      const receipt = feed.receipt(id);
      const mine = [];
      if (request?.member?.id === props.member.id) mine.push({ id, status: request.status });
      if (receipt && request?.requester.member?.id === props.member.id) {
        mine.push({ id: receipt.id, status: receipt.status });
      }
      return mine;
    }),
  );
  const running = () => turns().filter((turn) => STREAMING.has(turn.status));
  const statusOf = (jobId: string) => turns().find((turn) => turn.id === jobId)?.status ?? '';
  const activity = () =>
    [
      feed.memberStatus(props.member.id),
      ...turns().map((turn) => turn.status),
      ...running().map((turn) => team.progress.get(turn.id)?.tools.length ?? 0),
    ].join();
  createEffect(
    on(activity, () => {
      if (!pages.hasMore()) void pages.more();
    }),
  );

  onMount(() => {
    if (dialog?.showModal) dialog.showModal();
    else dialog?.setAttribute('open', '');
    close?.focus();
  });

  const usage = () => team.usage()?.members[props.member.id];

  return (
    <dialog
      ref={dialog}
      class="conv"
      aria-labelledby="at-conv-title"
      onCancel={(e) => {
        e.preventDefault();
        props.onClose();
      }}
      onKeyDown={(e) => {
        if (e.key !== 'Escape') return;
        e.preventDefault();
        e.stopPropagation();
        props.onClose();
      }}
    >
      <style>{CONVERSATION_STYLES}</style>
      <div class="head">
        <div class="grow">
          <h2 id="at-conv-title">{t().conversation.title(props.member.name)}</h2>
          <Show when={usage()}>{(own) => <p class="muted">{formatUsage(own(), lang(), t()).line}</p>}</Show>
        </div>
        <button type="button" ref={close} onClick={() => props.onClose()}>
          {t().conversation.close}
        </button>
      </div>
      <div class="conv-body" aria-busy={!pages.loaded()}>
        <ol class="msgs" aria-label={t().conversation.messages}>
          <For each={pages.messages()}>{(message) => <ConversationEntry message={message} />}</For>
        </ol>
        <Show when={!pages.loaded() && !pages.failure()}>
          <p class="muted">{t().conversation.loading}</p>
        </Show>
        <Show when={pages.failure()}>{(code) => <p role="alert">{t().common.error(code())}</p>}</Show>
        <Show when={pages.loaded() && pages.messages().length === 0}>
          <p class="muted">{t().conversation.empty}</p>
        </Show>
        <Show when={pages.hasMore()}>
          <button type="button" onClick={() => void pages.more()}>
            {t().conversation.more}
          </button>
        </Show>
        <Show when={running().length > 0}>
          <section class="working" aria-labelledby="at-conv-working">
            <h3 class="eyebrow" id="at-conv-working">
              {t().conversation.working}
            </h3>
            <For each={running().map((turn) => turn.id)}>
              {(jobId) => <JobLive jobId={jobId} status={statusOf(jobId)} />}
            </For>
          </section>
        </Show>
      </div>
    </dialog>
  );
}
