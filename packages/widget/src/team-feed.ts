import { createSignal, onCleanup } from 'solid-js';
import { ACTIVITY_QUERY, type Api, TEAM_EVENTS } from './api.js';
import type { JobView, MessageView, ReceiptView } from './feed-views.js';
import { createKeyedSignals } from './keyed-signals.js';
import { onPageVisible, pageHidden } from './page-visibility.js';

export type { InputView, JobView, MessageView, ReceiptView, UsageView } from './feed-views.js';

/** Statuses after which nothing changes. */
export const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

/** How updates currently arrive. */
export type LiveState = 'connecting' | 'live' | 'polling';

type ActivityData = {
  team: {
    status: string;
    lastEventSeq: number;
    activity:
      | { __typename: 'ActivityUnchanged'; revision: string }
      | {
          __typename: 'ActivityPage';
          revision: string;
          jobs: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; edges: { node: JobView }[] };
        };
    members: { id: string; status: string }[];
    waiting: { edges: { node: { id: string; member: { id: string } | null } }[] };
  } | null;
};

/** The live state of one team's activity (see {@link createTeamFeed}). */
export type TeamFeed = ReturnType<typeof createTeamFeed>;

/** Poll period while the socket is down, and the retry period of the socket itself. */
export const POLL_MS = 2000;

/**
 * The live state of one team's activity: graphql-ws `teamEvents` resumed from the last `seq`,
 * falling back to polling `Team.activity` with `revision` while the socket is down.
 *
 * @remarks The first subscription starts at `Team.lastEventSeq` as read with the activity
 * snapshot (the team row is read before its jobs, so nothing after that seq is missing from the
 * snapshot), so the log is not replayed from 0; later ones resume from the last `seq` applied.
 * RESUME_EXPIRED (the log no longer holds that seq) refetches and starts again from the head.
 * When the server ends a live socket's authority (its short-lived token expired, close 4403), the
 * feed subscribes again at once: the new socket asks the host for a fresh token and the server
 * replays every event after the last `seq` applied, so nothing is missed or shown twice.
 * Jobs are replaced per key ({@link createKeyedSignals}), so cards keep their DOM (open details,
 * typed answers) across updates. Polling pauses while the page is hidden (a background tab would
 * otherwise read the team every 2 s for nobody); when the page shows again with the socket down,
 * the feed reads and resubscribes at once. Must be called inside a Solid owner; cleanup stops
 * everything.
 */
export function createTeamFeed(api: Api, teamId: string, onGone: () => void, onMembers?: (ids: string[]) => void) {
  const [order, setOrder] = createSignal<string[]>([]);
  const requests = createKeyedSignals<JobView>();
  const receipts = createKeyedSignals<ReceiptView>();
  const memberStatus = createKeyedSignals<string>();
  const messages = createKeyedSignals<MessageView>();
  /** By member: the id of its job paused in `wait_for_change` (WAITING_CHANGE), or ''. */
  const waiting = createKeyedSignals<string>();
  const [live, setLive] = createSignal<LiveState>('connecting');
  const [teamStatus, setTeamStatus] = createSignal<string | null>(null);
  let lastSeq = 0;
  /** `Team.lastEventSeq` of the last complete read; null until one succeeds. */
  let headSeq: number | null = null;
  /** Set until the first subscription and after RESUME_EXPIRED: start from `headSeq`. */
  let resync = true;
  let revision: string | null = null;
  let stopped = false;
  let unsubscribe: (() => void) | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let refreshing: Promise<void> | null = null;

  /** Adds an id to the feed's order, which is by creation time (requests and messages together). */
  const place = (id: string) => {
    const createdAt = (key: string) => requests.peek(key)?.createdAt ?? messages.peek(key)?.createdAt ?? '';
    setOrder((ids) =>
      [...ids, id].sort((a, b) => (createdAt(a) < createdAt(b) ? -1 : createdAt(a) > createdAt(b) ? 1 : 0)),
    );
  };
  const putMessage = (message: MessageView) => {
    const known = messages.peek(message.id) !== undefined;
    messages.set(message.id, message);
    if (!known) place(message.id);
  };

  const upsert = (job: JobView) => {
    const member = job.member?.id;
    if (member && job.status === 'WAITING_CHANGE') waiting.set(member, job.id);
    else if (member && waiting.peek(member) === job.id) waiting.set(member, '');
    if (job.kind !== 'REQUEST' && job.kind !== 'RECEIPT') return;
    if (job.kind === 'RECEIPT') {
      const { id, status, error, errorCode, input, usage } = job;
      if (job.parent) receipts.set(job.parent.id, { id, status, error, errorCode, input, usage });
      return;
    }
    const { receipt, ...request } = job;
    if (receipt) receipts.set(job.id, receipt);
    const known = requests.peek(job.id) !== undefined;
    requests.set(job.id, request);
    if (!known) place(job.id);
  };

  /** Reads the activity page (skipped by the server when `revision` still matches). */
  const refresh = (): Promise<void> => {
    refreshing ??= (async () => {
      try {
        // The first page answers Unchanged when `revision` still matches; otherwise follow pages.
        let after: string | null = null;
        let pageRevision: string | null = revision;
        let head = 0;
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
            const paused = data.team.waiting.edges.map((edge) => edge.node);
            for (const member of data.team.members) {
              memberStatus.set(member.id, member.status);
              waiting.set(member.id, paused.find((job) => job.member?.id === member.id)?.id ?? '');
            }
            onMembers?.(data.team.members.map((member) => member.id));
            setTeamStatus(data.team.status);
            revision = activity.revision;
            head = data.team.lastEventSeq;
          }
          if (activity.__typename !== 'ActivityPage') break;
          for (const edge of activity.jobs.edges) upsert(edge.node);
          after = activity.jobs.pageInfo.hasNextPage ? activity.jobs.pageInfo.endCursor : null;
          pageRevision = null;
        } while (after !== null);
        // Only a complete read may move the starting point: a missing page would never be replayed.
        headSeq = head;
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
    if (resync) {
      if (headSeq !== null) lastSeq = headSeq;
      resync = false;
    }
    unsubscribe = api.live.subscribe(
      TEAM_EVENTS,
      { teamId, afterSeq: lastSeq },
      {
        next(data) {
          const event = data.teamEvents as {
            seq: number;
            team?: { status: string };
            job?: JobView;
            member?: { id: string; status: string };
            message?: MessageView;
          };
          if (event.seq <= lastSeq) return;
          lastSeq = event.seq;
          setLive('live');
          if (event.team) setTeamStatus(event.team.status);
          if (event.job) upsert(event.job);
          if (event.member) {
            memberStatus.set(event.member.id, event.member.status);
            onMembers?.([event.member.id]);
          }
          if (event.message) putMessage(event.message);
        },
        error({ code, reauthenticate }) {
          unsubscribe = null;
          if (stopped) return;
          if (code === 'NOT_FOUND') return onGone();
          // The token expired on a live socket: a new one (fresh token) resumes after lastSeq at once.
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

  /** Refresh by revision, then try the socket again. */
  const retry = () => {
    refresh()
      .catch(() => {})
      .finally(() => {
        if (!stopped && !unsubscribe) subscribe();
      });
  };
  /** While the socket is down and the page is shown: retry every {@link POLL_MS}. */
  const poll = () =>
    schedule(() => {
      if (!pageHidden()) retry();
    }, POLL_MS);
  const offVisible = onPageVisible(() => {
    if (stopped || unsubscribe || live() !== 'polling') return;
    if (timer) clearTimeout(timer);
    retry();
  });

  const offStatus = api.live.onStatus((up) => {
    if (up && !stopped) setLive('live');
  });

  void refresh()
    .catch(() => setLive('polling'))
    .finally(subscribe);

  const stop = () => {
    stopped = true;
    offStatus();
    offVisible();
    unsubscribe?.();
    if (timer) clearTimeout(timer);
  };
  onCleanup(stop);

  return {
    /** Request ids, oldest first. */
    order,
    request: requests.get,
    /** The receipt of a request, by the request's id. */
    receipt: receipts.get,
    memberStatus: memberStatus.get,
    /** A team message, by id (messages share `order` with requests). */
    message: messages.get,
    /** Adds a message read from `Team.messages` (or answered by `sendMessage`); known ids are replaced. */
    putMessage,
    /** The id of a member's job paused in `wait_for_change`, or '' / undefined when none. */
    waiting: waiting.get,
    /** The team's status as last read or announced (null before the first read). */
    teamStatus,
    /** Sets the status a mutation answered with (Reconnect), before its event arrives. */
    setTeamStatus,
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
