import { createSignal, onCleanup } from 'solid-js';
import { createStore, reconcile } from 'solid-js/store';
import { ACTIVITY_QUERY, type Api, TEAM_EVENTS } from './api.js';

/** A job as the widget reads it (see `JOB_FIELDS`). */
export interface JobView {
  id: string;
  kind: 'REQUEST' | 'RECEIPT';
  status: string;
  text: string;
  error: string | null;
  createdAt: string;
  finishedAt: string | null;
  conversationId: string | null;
  member: { id: string; name: string; conversationId: string } | null;
  requester: { member: { id: string; name: string } | null; conversationId: string | null };
  parent: { id: string; kind: string; text: string; member: { id: string; name: string } | null } | null;
  input: { kind: 'CLARIFICATION' | 'INTERRUPT'; question: string | null; payload: unknown } | null;
  result: { available: boolean; text: string | null; truncated: boolean | null };
  /** From the activity query: only what the card shows of the receipt. */
  receipt?: ReceiptView | null;
}

/** The receipt delivering a request's result back to the member who asked. */
export interface ReceiptView {
  id: string;
  status: string;
  error: string | null;
}

/** Statuses after which nothing changes. */
export const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

/** How updates currently arrive. */
export type LiveState = 'connecting' | 'live' | 'polling';

interface FeedState {
  order: string[];
  requests: Record<string, JobView>;
  receipts: Record<string, ReceiptView>;
  memberStatus: Record<string, string>;
}

type ActivityData = {
  team: {
    activity:
      | { __typename: 'ActivityUnchanged'; revision: string }
      | {
          __typename: 'ActivityPage';
          revision: string;
          jobs: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; edges: { node: JobView }[] };
        };
    members: { id: string; status: string }[];
  } | null;
};

/** Poll period while the socket is down, and the retry period of the socket itself. */
const POLL_MS = 2000;

/**
 * The live state of one team's activity: graphql-ws `teamEvents` resumed from the last `seq`,
 * falling back to polling `Team.activity` with `revision` while the socket is down.
 *
 * @remarks Jobs are merged into a store with `reconcile`, so cards keep their DOM (open details,
 * typed answers) across updates. Must be called inside a Solid owner; cleanup stops everything.
 */
export function createTeamFeed(api: Api, teamId: string, onGone: () => void) {
  const [state, setState] = createStore<FeedState>({ order: [], requests: {}, receipts: {}, memberStatus: {} });
  const [live, setLive] = createSignal<LiveState>('connecting');
  let lastSeq = 0;
  let revision: string | null = null;
  let stopped = false;
  let unsubscribe: (() => void) | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let refreshing: Promise<void> | null = null;

  const upsert = (job: JobView) => {
    if (job.kind === 'RECEIPT') {
      if (job.parent) setState('receipts', job.parent.id, { id: job.id, status: job.status, error: job.error });
      return;
    }
    const { receipt, ...request } = job;
    if (receipt) setState('receipts', job.id, reconcile(receipt));
    if (!state.requests[job.id]) {
      setState('requests', job.id, request as JobView);
      const order = [...state.order, job.id].sort((a, b) => {
        const x = state.requests[a]?.createdAt ?? '';
        const y = state.requests[b]?.createdAt ?? '';
        return x < y ? -1 : x > y ? 1 : 0;
      });
      setState('order', order);
    } else {
      setState('requests', job.id, reconcile(request as JobView));
    }
  };

  /** Reads the activity page (skipped by the server when `revision` still matches). */
  const refresh = (): Promise<void> => {
    refreshing ??= (async () => {
      try {
        // The first page answers Unchanged when `revision` still matches; otherwise follow pages.
        let after: string | null = null;
        let pageRevision: string | null = revision;
        do {
          const data: ActivityData = await api.query<ActivityData>(ACTIVITY_QUERY, {
            id: teamId,
            revision: pageRevision,
            after,
          });
          if (stopped) return;
          if (!data.team) return onGone();
          const activity = data.team.activity;
          if (after === null) {
            for (const member of data.team.members) setState('memberStatus', member.id, member.status);
            revision = activity.revision;
          }
          if (activity.__typename !== 'ActivityPage') break;
          for (const edge of activity.jobs.edges) upsert(edge.node);
          after = activity.jobs.pageInfo.hasNextPage ? activity.jobs.pageInfo.endCursor : null;
          pageRevision = null;
        } while (after !== null);
      } finally {
        refreshing = null;
      }
    })();
    return refreshing;
  };

  const schedule = (fn: () => void, ms: number) => {
    if (timer) clearTimeout(timer);
    timer = stopped ? null : setTimeout(fn, ms);
  };

  const subscribe = () => {
    if (stopped) return;
    unsubscribe = api.live.subscribe(
      TEAM_EVENTS,
      { teamId, afterSeq: lastSeq },
      {
        next(data) {
          const event = data.teamEvents as {
            __typename: string;
            seq: number;
            job?: JobView;
            member?: { id: string; status: string };
          };
          if (event.seq <= lastSeq) return;
          lastSeq = event.seq;
          if (event.job) upsert(event.job);
          if (event.member) setState('memberStatus', event.member.id, event.member.status);
        },
        error({ code }) {
          unsubscribe = null;
          if (stopped) return;
          if (code === 'NOT_FOUND') return onGone();
          setLive('polling');
          poll();
        },
        complete() {
          unsubscribe = null;
        },
      },
    );
  };

  /** While the socket is down: refresh by revision, then try the socket again. */
  const poll = () =>
    schedule(() => {
      refresh()
        .catch(() => {})
        .finally(() => {
          if (!stopped && !unsubscribe) subscribe();
        });
    }, POLL_MS);

  const offStatus = api.live.onStatus((up) => {
    if (up && !stopped) setLive('live');
  });

  void refresh()
    .catch(() => setLive('polling'))
    .finally(subscribe);

  const stop = () => {
    stopped = true;
    offStatus();
    unsubscribe?.();
    if (timer) clearTimeout(timer);
  };
  onCleanup(stop);

  return {
    state,
    live,
    refresh,
    /** Drops the socket and subscribes again from the last seq (the Manage menu's Reconnect). */
    reconnect() {
      unsubscribe?.();
      unsubscribe = null;
      subscribe();
    },
    stop,
  };
}
