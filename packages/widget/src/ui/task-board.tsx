import { createMemo, createSignal, For, Show } from 'solid-js';
import { TASK_STATUSES, type TaskView, type TaskWarningView } from '../task-board-api.js';
import { createTaskBoard } from '../task-board-state.js';
import { canCreateTask, TASK_LIMITS } from '../task-limits.js';
import { useWidget } from './context.js';
import { BoardContext } from './task-board-context.js';
import { boardStrings } from './task-board-strings.js';
import { TASK_BOARD_STYLES } from './task-board-styles.js';
import { TaskCard } from './task-card.js';
import { TaskEditor } from './task-editor.js';
import { useTeam } from './team-context.js';

/**
 * The team's task board (a chunk of its own, loaded when the person opens it): tasks grouped by
 * status, live from `TaskChanged`; a person creates, edits, assigns and cancels tasks.
 *
 * @remarks Changes that arrive live are announced in a polite live region ("Task “Docs”:
 * Claimed."), with the system's reason when it gives one; overlap warnings of a write go to the
 * board's status line. The form opens above the columns, focus moves into it and returns to the
 * button that opened it.
 */
export function TaskBoard() {
  const { t, lang, api } = useWidget();
  const team = useTeam();
  const s = () => boardStrings(lang());
  const board = createTaskBoard(api, team.teamId);
  const [editing, setEditing] = createSignal<{ task?: TaskView; opener?: HTMLElement } | null>(null);
  const [notice, setNotice] = createSignal('');

  const byStatus = createMemo(() => {
    const groups: Record<string, string[]> = { OPEN: [], CLAIMED: [], DONE: [], CANCELLED: [] };
    for (const id of board.order()) {
      const task = board.task(id);
      if (task) groups[task.status]?.push(id);
    }
    return groups;
  });
  const announcement = () => {
    const note = board.note();
    if (!note) return '';
    const status = s().statuses[note.task.status] ?? note.task.status;
    const what = note.task.owner ? `${status} · ${note.task.owner.name}` : status;
    return `${s().changed(note.task.title, what)}${note.reason ? ` ${note.reason}` : ''}`;
  };
  const notify = (warnings: TaskWarningView[]) =>
    setNotice(warnings.map((w) => s().overlap(w.scope, w.task.title)).join(' '));
  const close = () => {
    const opener = editing()?.opener;
    setEditing(null);
    opener?.focus();
  };

  return (
    <BoardContext.Provider
      value={{
        teamId: team.teamId,
        board,
        s,
        members: () => team.team().members.filter((m) => team.memberStatus(m) !== 'RETIRED'),
        writable: () => team.status() !== 'CLOSED',
        notify,
      }}
    >
      <section class="board" aria-label={s().board} aria-busy={!board.loaded()}>
        <style>{TASK_BOARD_STYLES}</style>
        <div class="row">
          <Show when={team.status() !== 'CLOSED'}>
            <button
              type="button"
              class="primary"
              disabled={!canCreateTask(board.order().length)}
              onClick={(e) => {
                setNotice('');
                setEditing({ opener: e.currentTarget });
              }}
            >
              {s().newTask}
            </button>
          </Show>
          <span class="muted">{s().count(board.order().length, TASK_LIMITS.tasksPerTeam)}</span>
          {/* The workspace's live line covers the shared socket; this says when the board's own feed is down. */}
          <Show when={board.live() === 'polling'}>
            <span class="liveline">{t().feed.polling}</span>
          </Show>
        </div>
        <p class="sr" aria-live="polite">
          {announcement()}
        </p>
        <Show when={notice()}>
          <p class="muted" role="status">
            {notice()}
          </p>
        </Show>
        <Show when={editing()} keyed>
          {(open) => <TaskEditor task={open.task} onClose={close} />}
        </Show>
        <div class="cols">
          <For each={TASK_STATUSES}>
            {(status) => (
              <section class="col" aria-labelledby={`at-col-${status}`}>
                <h3 id={`at-col-${status}`}>
                  {s().column(s().statuses[status] ?? status, byStatus()[status]?.length ?? 0)}
                </h3>
                <ul>
                  <For each={byStatus()[status] ?? []} fallback={<li class="muted">{s().empty}</li>}>
                    {(id) => (
                      <Show when={board.task(id)}>
                        {(task) => (
                          <li>
                            <TaskCard
                              task={task()}
                              onEdit={(opener) => {
                                setNotice('');
                                setEditing({ task: task(), opener });
                              }}
                            />
                          </li>
                        )}
                      </Show>
                    )}
                  </For>
                </ul>
              </section>
            )}
          </For>
        </div>
      </section>
    </BoardContext.Provider>
  );
}
