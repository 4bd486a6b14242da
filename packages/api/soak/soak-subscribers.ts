import WebSocket from 'ws';
import { type LoadFigures, recordError, type SoakTeam } from './soak-load.js';

const TEAM_EVENTS = `subscription($teamId: ID!, $afterSeq: Int) { teamEvents(teamId: $teamId, afterSeq: $afterSeq) {
  __typename seq ... on JobChanged { job { id status } } } }`;

/** One subscription: the team it follows and the last seq it saw (resumed from after a reconnect). */
interface Subscription {
  teamId: string;
  lastSeq: number | null;
  generation: number;
}

/** What the subscribers saw. */
export interface SubscriberFigures {
  events: number;
  reconnects: number;
  resubscribes: number;
}

/**
 * Live subscribers of one owner: sockets of `perSocket` `teamEvents` subscriptions each, that
 * check every team's seqs arrive without a gap (across reconnects too, resuming with `afterSeq`)
 * and follow a new team when theirs is deleted.
 */
export class OwnerSubscribers {
  readonly #sockets: (WebSocket | null)[] = [];
  readonly #subs: Subscription[][] = [];
  /** Sockets this side closed (churn): their close is expected, whatever its code. */
  readonly #churned = new WeakSet<WebSocket>();
  #closing = false;

  constructor(
    readonly wsUrl: string,
    readonly token: string,
    readonly teams: SoakTeam[],
    readonly figures: LoadFigures,
    readonly seen: SubscriberFigures,
  ) {}

  /** Opens `sockets` sockets of `perSocket` subscriptions each. */
  open(sockets: number, perSocket: number): void {
    for (let i = 0; i < sockets; i++) {
      this.#subs.push(
        Array.from({ length: perSocket }, (_, n) => ({
          teamId: this.#teamFor(i + n),
          lastSeq: null,
          generation: 0,
        })),
      );
      this.#sockets.push(null);
      this.#connect(i);
    }
  }

  /** Closes socket `index` from the client side and opens it again, resuming every subscription. */
  churn(index: number): void {
    const socket = this.#sockets[index % this.#sockets.length];
    if (socket?.readyState !== WebSocket.OPEN) return;
    this.#churned.add(socket);
    socket.close(1000);
  }

  get sockets(): number {
    return this.#sockets.length;
  }

  close(): void {
    this.#closing = true;
    for (const socket of this.#sockets) socket?.terminate();
  }

  #teamFor(n: number): string {
    return (this.teams[n % this.teams.length] as SoakTeam).id;
  }

  #connect(index: number): void {
    const socket = new WebSocket(this.wsUrl, 'graphql-transport-ws');
    this.#sockets[index] = socket;
    const subs = this.#subs[index] as Subscription[];
    const subscribe = (n: number) => {
      const sub = subs[n] as Subscription;
      const variables = sub.lastSeq === null ? { teamId: sub.teamId } : { teamId: sub.teamId, afterSeq: sub.lastSeq };
      socket.send(
        JSON.stringify({ id: `${n}-${sub.generation}`, type: 'subscribe', payload: { query: TEAM_EVENTS, variables } }),
      );
    };
    socket.on('open', () =>
      socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${this.token}` } })),
    );
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as { type: string; id?: string; payload?: unknown };
      if (frame.type === 'connection_ack') {
        for (let n = 0; n < subs.length; n++) subscribe(n);
        return;
      }
      const [n, generation] = (frame.id ?? '').split('-').map(Number);
      const sub = subs[n ?? -1];
      if (!sub || generation !== sub.generation) return;
      if (frame.type === 'next') {
        const payload = frame.payload as { data?: { teamEvents?: { seq: number } }; errors?: unknown[] };
        const seq = payload.data?.teamEvents?.seq;
        if (seq === undefined) return this.#follow(sub, n as number, subscribe, JSON.stringify(payload.errors));
        if (sub.lastSeq !== null && seq !== sub.lastSeq + 1) {
          recordError(this.figures, `seq gap on ${sub.teamId}: ${sub.lastSeq} then ${seq}`);
        }
        sub.lastSeq = seq;
        this.seen.events += 1;
      } else if (frame.type === 'error' || frame.type === 'complete') {
        this.#follow(sub, n as number, subscribe, JSON.stringify(frame.payload ?? 'complete'));
      }
    });
    socket.on('error', () => {});
    socket.on('close', (code) => {
      if (this.#closing) return;
      if (!this.#churned.has(socket)) recordError(this.figures, `socket closed by the server with ${code}`);
      this.seen.reconnects += 1;
      this.#connect(index);
    });
  }

  /** The team of `sub` is gone (deleted): follow a current team of the owner from its head. */
  #follow(sub: Subscription, n: number, subscribe: (n: number) => void, why: string): void {
    const live = this.teams.find((team) => team.id === sub.teamId && !team.closing);
    if (live !== undefined) {
      recordError(this.figures, `subscription ended: ${why}`);
    }
    sub.teamId = this.#teamFor(n + sub.generation + 1);
    sub.lastSeq = null;
    sub.generation += 1;
    this.seen.resubscribes += 1;
    subscribe(n);
  }
}
