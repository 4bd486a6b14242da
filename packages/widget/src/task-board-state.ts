import { batch, createSignal, onCleanup, type Signal, untrack } from 'solid-js';
import type { Api } from './api.js';
import { onPageVisible, pageHidden } from './page-visibility.js';
import { TASK_EVENTS, TASKS_QUERY, type TaskView } from './task-board-api.js';
import type { LiveState } from './team-feed.js';

/**
 * How often the board is read while the socket is down: the feed's `POLL_MS`. Not imported, nor
 * `createKeyedSignals`: importing either from this chunk made rolldown move Solid and the shared
 * code out of `widget.js` into a third chunk every page would load first (decision 0080).
 */
const RETRY_MS = 2000;

/** One signal per task id, so a change wakes only that task's card (like `keyed-signals.ts`). */
function keyedTasks() {
  const signals = new Map<string, Signal<TaskView | undefined>>();
  const signal = (id: string) => {
    const found = signals.get(id);
    if (found) return found;
    const made = createSignal<TaskView | undefined>();
    signals.set(id, made);
    return made;
  };
  return {
    get: (id: string) => signal(id)[0](),
    peek: (id: string) => untrack(signal(id)[0]),
    set: (id: string, task: TaskView) => signal(id)[1](task),
  };
}

type TasksData = {
  team: {
    lastEventSeq: number;
    tasks: {
      totalCount: number;
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
      edges: { node: TaskView }[];
    };
  } | null;
};

/** A task that changed live, for the board's announcement (`reason` when the system changed it). */
export interface TaskChangeNote {
  task: TaskView;
  reason: string | null;
}

/** The live state of one team's task board (see {@link createTaskBoard}). */
export type TaskBoardState = ReturnType<typeof createTaskBoard>;

/**
 * The live state of one team's task board: every page of `Team.tasks` (following `endCursor`,
 * at most 256 tasks), kept current by the board's own `teamEvents` subscription (`TaskChanged`).
 *
 * @remarks Works like the activity feed (`team-feed.ts`): the subscription starts at
 * `Team.lastEventSeq` as read with the first page and resumes from the last `seq` applied;
 * RESUME_EXPIRED reads the whole board again and starts from the new head; a dropped socket
 * reads the board every {@link RETRY_MS} while the page is shown and subscribes again; a socket
 * whose token expired (4403) resubscribes at once. A task is only replaced by a revision at
 * least as new as the one shown, so a late event never undoes a write's answer. Must be called
 * inside a Solid owner; cleanup stops everything.
 */
export function createTaskBoard(api: Api, teamId: string) {
  const [order, setOrder] = createSignal<string[]>([]);
  const tasks = keyedTasks();
  const [live, setLive] = createSignal<LiveState>('connecting');
  const [loaded, setLoaded] = createSignal(false);
  const [note, setNote] = createSignal<TaskChangeNote | null>(null);
  let lastSeq = 0;
  let headSeq: number | null = null;
  let resync = true;
  let stopped = false;
  let unsubscribe: (() => void) | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let reading: Promise<void> | null = null;

  /** Shows `task` unless a newer revision of it is shown; true when it replaced something. */
  const put = (task: TaskView): boolean => {
    const known = tasks.peek(task.id);
    if (known && known.revision > task.revision) return false;
    tasks.set(task.id, task);
    if (!known) setOrder((ids) => [...ids, task.id]);
    return true;
  };

  /** Reads every page of the board. */
  const refresh = (): Promise<void> => {
    reading ??= (async () => {
      try {
        let after: string | null = null;
        let head: number | null = null;
        do {
          const data: TasksData = await api.query<TasksData>(TASKS_QUERY, { id: teamId, after });
          if (stopped || !data.team) return;
          head ??= data.team.lastEventSeq;
          const { edges, pageInfo } = data.team.tasks;
          // One update per page, not per task: the columns are grouped once.
          batch(() => {
            for (const edge of edges) put(edge.node);
          });
          after = pageInfo.hasNextPage ? pageInfo.endCursor : null;
        } while (after !== null);
        headSeq = head;
        setLoaded(true);
      } finally {
        reading = null;
      }
    })();
    return reading;
  };

  const subscribe = () => {
    if (stopped) return;
    if (resync) {
      if (headSeq !== null) lastSeq = headSeq;
      resync = false;
    }
    unsubscribe = api.live.subscribe(
      TASK_EVENTS,
      { teamId, afterSeq: lastSeq },
      {
        next(data) {
          const event = data.teamEvents as { seq: number; task?: TaskView; reason?: string | null };
          if (event.seq <= lastSeq) return;
          lastSeq = event.seq;
          setLive('live');
          if (event.task && put(event.task)) setNote({ task: event.task, reason: event.reason ?? null });
        },
        error({ code, reauthenticate }) {
          unsubscribe = null;
          if (stopped) return;
          if (reauthenticate) return subscribe();
          if (code === 'RESUME_EXPIRED') {
            resync = true;
            headSeq = null;
          }
          setLive('polling');
          poll();
        },
        complete() {
          unsubscribe = null;
        },
      },
    );
  };

  const retry = () => {
    refresh()
      .catch(() => {})
      .finally(() => {
        if (!stopped && !unsubscribe) subscribe();
      });
  };
  const poll = () => {
    if (timer) clearTimeout(timer);
    timer = stopped
      ? null
      : setTimeout(() => {
          if (!pageHidden()) retry();
        }, RETRY_MS);
  };
  const offVisible = onPageVisible(() => {
    if (stopped || unsubscribe || live() !== 'polling') return;
    if (timer) clearTimeout(timer);
    retry();
  });

  void refresh()
    .catch(() => setLive('polling'))
    .finally(subscribe);

  onCleanup(() => {
    stopped = true;
    offVisible();
    unsubscribe?.();
    if (timer) clearTimeout(timer);
  });

  return {
    /** Task ids in creation order. */
    order,
    task: tasks.get,
    /** True once every page was read. */
    loaded,
    live,
    /** The last task that changed live (for the polite announcement). */
    note,
    /** Shows what a write answered (or a task read again) at once, before its event. */
    put,
    refresh,
  };
}
