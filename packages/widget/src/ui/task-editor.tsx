import { createSignal, For, onMount, Show } from 'solid-js';
import { createRetryKey } from '../ids.js';
import {
  CREATE_TASK,
  TASK_QUERY,
  type TaskView,
  TaskWriteError,
  taskErrorCode,
  UPDATE_TASK,
  writeTask,
} from '../task-board-api.js';
import { checkTaskDraft, draftScopes, type TaskDraft } from '../task-limits.js';
import { useWidget } from './context.js';
import { describeDraftProblem, describeTaskError, titleOf, useBoard } from './task-board-context.js';

type Field = keyof TaskDraft;
const FIELDS: Field[] = ['title', 'details', 'dependsOn', 'scopes'];

/** The form's values for a task as it is. */
const draftOf = (task: TaskView | undefined): TaskDraft => ({
  title: task?.title ?? '',
  details: task?.details ?? '',
  dependsOn: task?.dependsOn.map((d) => d.id) ?? [],
  scopes: task?.writeScope.join('\n') ?? '',
});

/** A field's value in comparable form (dependency order and blank scope lines do not matter). */
const norm = (draft: TaskDraft, field: Field): string =>
  field === 'dependsOn'
    ? [...draft.dependsOn].sort().join()
    : field === 'scopes'
      ? draftScopes(draft).join('\n')
      : draft[field].trim() === ''
        ? ''
        : draft[field];

/**
 * Creates a task, or edits one (title, details, dependencies, write scopes) with
 * `expectedRevision`. A stale edit (TASK_STALE_REVISION) reads the task as it is now, says what
 * changed, and offers to apply the person's edit to it (only the fields they changed, onto the
 * current values of the rest) or to discard it; what they typed stays in the form meanwhile.
 */
export function TaskEditor(props: { task?: TaskView; onClose: () => void }) {
  const { t, api } = useWidget();
  const ctx = useBoard();
  const s = () => ctx.s();
  const [draft, setDraft] = createSignal(draftOf(props.task));
  /** The version the edit started from (its revision is `expectedRevision`). */
  const [base, setBase] = createSignal(props.task);
  /** The task as it is now, after a stale write; null otherwise. */
  const [stale, setStale] = createSignal<TaskView | null>(null);
  const [error, setError] = createSignal('');
  const [busy, setBusy] = createSignal(false);
  const key = createRetryKey();
  let titleInput: HTMLInputElement | undefined;
  onMount(() => titleInput?.focus());

  const set = <K extends Field>(field: K, value: TaskDraft[K]) => setDraft((d) => ({ ...d, [field]: value }));
  const choices = () =>
    ctx.board
      .order()
      .map((id) => ctx.board.task(id))
      .filter(
        (task): task is TaskView =>
          !!task && task.id !== props.task?.id && (task.status !== 'CANCELLED' || draft().dependsOn.includes(task.id)),
      );

  const save = async () => {
    const d = draft();
    const problem = checkTaskDraft(d);
    if (problem) return setError(describeDraftProblem(problem, s(), t()));
    setError('');
    const from = base();
    const details = d.details.trim() === '' ? '' : d.details;
    const input: Record<string, unknown> = from
      ? { taskId: from.id, expectedRevision: from.revision }
      : { teamId: ctx.teamId, clientRequestId: key.keyFor(JSON.stringify(d)) };
    const old = draftOf(from);
    // An edit sends only what the person changed, so it never overwrites the rest with old values.
    const send = (field: Field) => !from || norm(d, field) !== norm(old, field);
    if (send('title')) input.title = d.title;
    if (send('details')) input.details = from ? details : details || null;
    if (send('dependsOn')) input.dependsOn = d.dependsOn;
    if (send('scopes')) input.writeScope = draftScopes(d);
    if (from && Object.keys(input).length === 2) return props.onClose();
    setBusy(true);
    try {
      const payload = await writeTask(api, from ? UPDATE_TASK : CREATE_TASK, input);
      ctx.board.put(payload.task);
      ctx.notify(payload.warnings);
      props.onClose();
    } catch (failure) {
      if (failure instanceof TaskWriteError && failure.code === 'TASK_STALE_REVISION' && from) await readCurrent(from);
      else setError(describeTaskError(failure, ctx, t()));
    } finally {
      setBusy(false);
    }
  };

  const readCurrent = async (from: TaskView) => {
    try {
      const data = await api.query<{ node: TaskView | null }>(TASK_QUERY, { id: from.id });
      if (!data.node) return setError(t().common.error('NOT_FOUND'));
      ctx.board.put(data.node);
      setStale(data.node);
    } catch (failure) {
      setError(t().common.error(taskErrorCode(failure)));
    }
  };

  /** Keeps the fields the person changed, takes the current value of the others, and saves again. */
  const reapply = () => {
    const now = stale();
    if (!now) return;
    const old = draftOf(base());
    const current = draftOf(now);
    const d = draft();
    const merged = { ...d };
    for (const field of FIELDS)
      if (norm(d, field) === norm(old, field)) Object.assign(merged, { [field]: current[field] });
    setDraft(merged);
    setBase(now);
    setStale(null);
    void save();
  };
  const discard = () => {
    const now = stale();
    if (!now) return;
    setDraft(draftOf(now));
    setBase(now);
    setStale(null);
    titleInput?.focus();
  };

  /** What differs between the version the edit started from and the current one. */
  const changes = () => {
    const now = stale();
    const was = base();
    if (!now || !was) return [];
    const deps = (task: TaskView) => task.dependsOn.map((d) => titleOf(ctx.board, d.id)).join(', ') || s().none;
    const rows: [string, string, string][] = [
      [s().form.title, was.title, now.title],
      [s().form.details, was.details ?? '', now.details ?? ''],
      [s().dependsOn, deps(was), deps(now)],
      [s().scopes, was.writeScope.join(', ') || s().none, now.writeScope.join(', ') || s().none],
      [s().owner, was.owner?.name ?? s().unassigned, now.owner?.name ?? s().unassigned],
      [s().stale.status, s().statuses[was.status] ?? '', s().statuses[now.status] ?? ''],
    ];
    return rows.filter(([, a, b]) => a !== b);
  };

  const heading = () => (props.task ? s().form.edit(props.task.title) : s().form.create);
  return (
    <form
      class="card"
      aria-label={heading()}
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
      onKeyDown={(event) => {
        if (event.key === 'Escape') props.onClose();
      }}
    >
      <h4>{heading()}</h4>
      <Show when={stale()}>
        {(now) => (
          <div class="stale" role="alert">
            <p>
              <strong>{s().stale.title}</strong> {s().stale.body(base()?.revision ?? 0, now().revision)}
            </p>
            <Show when={changes().length} fallback={<p>{s().stale.nothing}</p>}>
              <p>{s().stale.changed}</p>
              <dl class="kv">
                <For each={changes()}>
                  {([label, was, is]) => (
                    <>
                      <dt>{label}</dt>
                      <dd>
                        <del>{was}</del> → <ins>{is}</ins>
                      </dd>
                    </>
                  )}
                </For>
              </dl>
            </Show>
            <p>{s().stale.yours}</p>
            <div class="row">
              <button type="button" class="primary" disabled={busy()} onClick={reapply}>
                {s().stale.reapply}
              </button>
              <button type="button" onClick={discard}>
                {s().stale.discard}
              </button>
            </div>
          </div>
        )}
      </Show>
      <label>
        {s().form.title}
        <input
          ref={titleInput}
          value={draft().title}
          onInput={(e) => set('title', e.currentTarget.value)}
          aria-describedby="at-task-error"
        />
      </label>
      <label>
        {s().form.details}
        <textarea rows={3} value={draft().details} onInput={(e) => set('details', e.currentTarget.value)} />
      </label>
      <Show when={choices().length}>
        <fieldset>
          <legend>{s().form.dependencies}</legend>
          <For each={choices()}>
            {(task) => (
              <label class="check">
                <input
                  type="checkbox"
                  checked={draft().dependsOn.includes(task.id)}
                  onChange={(e) =>
                    set(
                      'dependsOn',
                      e.currentTarget.checked
                        ? [...draft().dependsOn, task.id]
                        : draft().dependsOn.filter((id) => id !== task.id),
                    )
                  }
                />
                {task.title}
              </label>
            )}
          </For>
        </fieldset>
      </Show>
      <label>
        {s().form.scopes}
        <textarea rows={2} value={draft().scopes} onInput={(e) => set('scopes', e.currentTarget.value)} />
      </label>
      <p id="at-task-error" class="err" role="alert">
        {error()}
      </p>
      <div class="row">
        <button type="submit" class="primary" disabled={busy() || !!stale()}>
          {s().form.save}
        </button>
        <button type="button" onClick={props.onClose}>
          {s().form.close}
        </button>
      </div>
    </form>
  );
}
