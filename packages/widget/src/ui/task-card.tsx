import { createSignal, For, Show } from 'solid-js';
import { ASSIGN_TASK, CANCEL_TASK, TASK_QUERY, type TaskView, TaskWriteError, writeTask } from '../task-board-api.js';
import { useWidget } from './context.js';
import { describeTaskError, useBoard } from './task-board-context.js';

/**
 * One task on the board: title, revision, owner, dependencies by title (those not done marked),
 * write scopes and details; Edit, Assign (to a member, or Unassigned to release) and Cancel task
 * while it is unfinished. Assign and cancel send the revision shown; when the task changed
 * meanwhile, the card reads and shows the current version and says so.
 */
export function TaskCard(props: { task: TaskView; onEdit: (opener: HTMLElement) => void }) {
  const { t, api } = useWidget();
  const ctx = useBoard();
  const s = () => ctx.s();
  const [error, setError] = createSignal('');
  const [busy, setBusy] = createSignal(false);
  const [assignee, setAssignee] = createSignal<string | null>(null);
  const errorId = () => `at-task-${props.task.id}-error`;
  const open = () => props.task.status === 'OPEN' || props.task.status === 'CLAIMED';
  /** The dependencies with their live state when the board holds them. */
  const deps = () => props.task.dependsOn.map((dep) => ctx.board.task(dep.id) ?? dep);

  const write = async (document: string, input: Record<string, unknown>) => {
    setError('');
    setBusy(true);
    try {
      const payload = await writeTask(api, document, {
        taskId: props.task.id,
        expectedRevision: props.task.revision,
        ...input,
      });
      ctx.board.put(payload.task);
      ctx.notify(payload.warnings);
      setAssignee(null);
    } catch (failure) {
      setError(describeTaskError(failure, ctx, t()));
      if (failure instanceof TaskWriteError && failure.code === 'TASK_STALE_REVISION') {
        const data = await api.query<{ node: TaskView | null }>(TASK_QUERY, { id: props.task.id }).catch(() => null);
        if (data?.node) ctx.board.put(data.node);
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <article class="card" aria-labelledby={`at-task-${props.task.id}`}>
      <div class="row">
        <h4 id={`at-task-${props.task.id}`}>{props.task.title}</h4>
        <span class="muted">{s().revision(props.task.revision)}</span>
      </div>
      <Show when={props.task.details}>{(details) => <p class="text">{details()}</p>}</Show>
      <dl class="kv">
        <dt>{s().owner}</dt>
        <dd>{props.task.owner?.name ?? s().unassigned}</dd>
        <dt>{s().dependsOn}</dt>
        <dd>
          <For each={deps()} fallback={s().none}>
            {(dep, i) => (
              <>
                {i() > 0 && ', '}
                <span class={dep.status === 'DONE' ? 'dep' : 'dep open'}>
                  {dep.status === 'DONE' ? dep.title : s().notDone(dep.title)}
                </span>
              </>
            )}
          </For>
        </dd>
        <dt>{s().scopes}</dt>
        <dd class="code">{props.task.writeScope.join(', ') || s().none}</dd>
      </dl>
      <Show when={open() && ctx.writable()}>
        <div class="row">
          <button type="button" onClick={(e) => props.onEdit(e.currentTarget)}>
            {s().edit}
          </button>
          <select
            aria-label={s().assignTo(props.task.title)}
            value={assignee() ?? props.task.owner?.id ?? ''}
            onChange={(e) => setAssignee(e.currentTarget.value)}
          >
            <option value="">{s().unassigned}</option>
            <For each={ctx.members()}>{(m) => <option value={m.id}>{m.name}</option>}</For>
          </select>
          <button
            type="button"
            disabled={busy()}
            aria-describedby={errorId()}
            onClick={() => void write(ASSIGN_TASK, { memberId: (assignee() ?? props.task.owner?.id) || null })}
          >
            {s().assign}
          </button>
          <button
            type="button"
            class="danger"
            disabled={busy()}
            aria-describedby={errorId()}
            onClick={() => void write(CANCEL_TASK, {})}
          >
            {s().cancelTask}
          </button>
        </div>
      </Show>
      <p id={errorId()} class="err" role="alert">
        {error()}
      </p>
    </article>
  );
}
