import { createEffect, createMemo, Show, untrack } from 'solid-js';
import { STREAMING } from '../job-progress.js';
import { useWidget } from './context.js';
import { useTeam } from './team-context.js';

/**
 * What a job is doing right now: the tool it is calling and the text it has streamed.
 *
 * @remarks Subscribed from the queue on, so no early notice is missed; shown while the job runs.
 * Only the tool line is a live region (present before its first tool, so the first one is
 * announced too): announcing every text delta would drown a screen reader.
 */
export function JobLive(props: { jobId: string; status: string }) {
  const { t } = useWidget();
  const { progress } = useTeam();
  // Only whether it streams is tracked (a memo, and the id read untracked): an update of the job
  // that keeps it streaming keeps its one subscription and what it has streamed so far.
  const streaming = createMemo(() => STREAMING.has(props.status));
  createEffect(() => {
    if (streaming()) untrack(() => progress.watch(props.jobId));
  });
  const tools = () => progress.get(props.jobId)?.tools ?? [];
  return (
    <Show when={props.status === 'RUNNING' || props.status === 'RESUMING'}>
      <div class="live">
        <p class="tool" aria-live="polite">
          {tools().length > 0 ? t().live.calling(tools()[tools().length - 1] ?? '') : ''}
        </p>
        <Show when={progress.get(props.jobId)?.text}>{(text) => <p class="text muted">{text()}</p>}</Show>
      </div>
    </Show>
  );
}
