/**
 * The subscribers of the `token-relay` benchmark, in their own process: WebSockets speaking
 * graphql-transport-ws over {@link RawWebSocket}, one subscription each. Active sockets follow a
 * running job's `jobProgress` (the widget's own document) and time every text delta against the
 * send time the provider stamped into its text; idle sockets follow a quiet team's `teamEvents`
 * or a finished job's `jobProgress` and must receive nothing once subscribed.
 *
 * IPC: parent → `{ type: 'open', url, token, active: { jobIds, perJob } }` or `{ type: 'open',
 * url, token, idle: { teams, jobIds, count } }`; child → `{ type: 'opened', sockets }` once every
 * new socket is acknowledged and subscribed (an idle `teamEvents` socket once its one replayed
 * event arrived); parent → `{ type: 'measure', chunks, warmup }`; child → `{ type: 'measuring' }`;
 * parent → `{ type: 'count' }`; child → `{ type: 'counted', deliveries, complete }`; parent →
 * `{ type: 'report' }`; child → `{ type: 'report', latency, deliveries, minPerSocket, errors,
 * idleDeliveries, worstBySecond, cpuMicros, loopDelay }` (CPU and event-loop delay since `measure`).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { summarize } from './harness/stats.js';
import { parseDelta } from './harness/streaming-chat-provider.js';
import { loopDelayOf, monotonicMs } from './live-clock.js';
import { RawWebSocket } from './live-raw-socket.js';

/** The widget's `jobProgress` document (packages/widget/src/api.ts). */
const JOB_PROGRESS = 'subscription Progress($jobId: ID!) { jobProgress(jobId: $jobId) { textDelta toolCall } }';
const TEAM_EVENTS = `subscription($teamId: ID!, $afterSeq: Int) { teamEvents(teamId: $teamId, afterSeq: $afterSeq) {
  __typename seq ... on JobChanged { job { id status } } } }`;

const NEXT_PREFIX = Buffer.from('{"id":"1","type":"next","payload":');
const DELTA_KEY = Buffer.from('"textDelta":"');
/** The job's last payload (its terminal status, no text): since the thirty-fourth pass the stream then completes. */
const FINAL_KEY = Buffer.from('"textDelta":null');
const QUOTE = 0x22;

interface Open {
  readonly url: string;
  readonly token: string;
  readonly active?: { readonly jobIds: readonly string[]; readonly perJob: number };
  readonly idle?: {
    readonly teams: readonly { teamId: string; afterSeq: number }[];
    readonly jobIds: readonly string[];
    readonly count: number;
  };
}

/** One active subscriber: the provider stream it follows (learnt from its first delta) and the next index. */
interface Follower {
  stream: number;
  next: number;
  /** Its job's last payload arrived (at most once, after every delta). */
  ended: boolean;
}

const sockets: RawWebSocket[] = [];
const followers: Follower[] = [];
let latencies = new Float64Array(1024);
let samples = 0;
let deliveries = 0;
let errors = 0;
let idleDeliveries = 0;
let warmup = 0;
let chunks = 0;
let cpuAtMeasure: NodeJS.CpuUsage | null = null;
const loopDelay = monitorEventLoopDelay({ resolution: 1 });

/** Worst latency per second of the stream (by send time): a stall and a steady backlog look different. */
const worstBySecond: number[] = [];
let firstSentAt = Number.NaN;

function sample(value: number, sentAt: number): void {
  if (samples === latencies.length) {
    const grown = new Float64Array(latencies.length * 2);
    grown.set(latencies);
    latencies = grown;
  }
  latencies[samples++] = value;
  if (Number.isNaN(firstSentAt)) firstSentAt = sentAt;
  const second = Math.max(0, Math.floor((sentAt - firstSentAt) / 1000));
  worstBySecond[second] = Math.max(worstBySecond[second] ?? 0, value);
}

/** A `next` frame of an active socket: the delta's text is read from the bytes, then checked. */
function onDelta(follower: Follower, data: Buffer, at: number): void {
  const from = data.indexOf(DELTA_KEY, NEXT_PREFIX.length);
  const to = from < 0 ? -1 : data.indexOf(QUOTE, from + DELTA_KEY.length);
  const delta = to < 0 ? null : parseDelta(data.toString('latin1', from + DELTA_KEY.length, to));
  if (delta === null) {
    // The job's last payload is expected once, after its deltas; anything else is an error.
    if (from < 0 && data.includes(FINAL_KEY) && !follower.ended) follower.ended = true;
    else errors += 1;
    return;
  }
  if (follower.ended) errors += 1;
  if (follower.next === 0) follower.stream = delta.stream;
  // Each subscriber must see its job's deltas once each, in order, none from another job.
  if (delta.stream !== follower.stream || delta.index !== follower.next) errors += 1;
  follower.next = delta.index + 1;
  deliveries += 1;
  if (delta.index >= warmup) sample(at - delta.sentAt, delta.sentAt);
}

function isNext(data: Buffer): boolean {
  return (
    data.length > NEXT_PREFIX.length && data.compare(NEXT_PREFIX, 0, NEXT_PREFIX.length, 0, NEXT_PREFIX.length) === 0
  );
}

/**
 * Opens one socket with one subscription; `onReady` runs once it is subscribed (after its first
 * event when `firstEventReady`), `onNext` gets every later `next` frame, `onFailed` an error
 * before it was subscribed.
 */
function open(
  message: Open,
  query: string,
  variables: object,
  firstEventReady: boolean,
  onReady: () => void,
  onNext: (data: Buffer, at: number) => void,
  onFailed: (reason: string) => void,
): void {
  let ready = false;
  const becomeReady = () => {
    ready = true;
    onReady();
  };
  const socket: RawWebSocket = new RawWebSocket(message.url, 'graphql-transport-ws', {
    onOpen: () =>
      socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${message.token}` } })),
    onText: (data) => {
      const at = monotonicMs();
      if (isNext(data)) {
        if (ready) onNext(data, at);
        else if (firstEventReady) becomeReady();
        return;
      }
      const frame = JSON.parse(data.toString()) as { type: string };
      if (frame.type === 'connection_ack') {
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query, variables } }));
        if (!firstEventReady) becomeReady();
      } else if (frame.type === 'ping') socket.send('{"type":"pong"}');
      // `complete`: a followed job ended (its stream ends after the last payload).
      else if (frame.type !== 'pong' && frame.type !== 'complete') errors += 1;
    },
    onError: (reason) => {
      errors += 1;
      if (!ready) {
        // Reported once: the socket will never subscribe.
        ready = true;
        onFailed(reason);
      }
    },
  });
  sockets.push(socket);
}

async function openAll(message: Open): Promise<void> {
  const plans: (() => void)[] = [];
  let ready = 0;
  const failures: string[] = [];
  const onReady = () => {
    ready += 1;
  };
  const onFailed = (reason: string) => {
    failures.push(reason);
  };
  for (const jobId of message.active?.jobIds ?? []) {
    for (let i = 0; i < (message.active?.perJob ?? 0); i += 1) {
      const follower: Follower = { stream: -1, next: 0, ended: false };
      followers.push(follower);
      plans.push(() =>
        open(message, JOB_PROGRESS, { jobId }, false, onReady, (data, at) => onDelta(follower, data, at), onFailed),
      );
    }
  }
  const idle = message.idle;
  const onIdle = () => {
    idleDeliveries += 1;
  };
  for (let i = 0; idle && i < idle.count; i += 1) {
    // Half follow a quiet team (from its last event, so one replayed event proves the
    // subscription is live), half a finished job's progress.
    const team = idle.teams[i % idle.teams.length];
    const jobId = idle.jobIds[i % idle.jobIds.length];
    plans.push(
      i % 2 === 0 && team
        ? () => open(message, TEAM_EVENTS, team, true, onReady, onIdle, onFailed)
        : () => open(message, JOB_PROGRESS, { jobId }, false, onReady, onIdle, onFailed),
    );
  }
  const deadline = Date.now() + 300_000;
  const settled = () => ready + failures.length;
  const waitFor = async (done: () => boolean) => {
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`only ${ready} of ${plans.length} sockets subscribed`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  for (const [i, plan] of plans.entries()) {
    // At most 200 handshakes in flight, so the server's accept queue (511) never overflows.
    if (i - settled() >= 200) await waitFor(() => i - settled() < 200);
    plan();
  }
  await waitFor(() => settled() === plans.length);
  if (failures.length > 0) {
    throw new Error(
      `${failures.length} of ${plans.length} sockets failed to subscribe: ${failures.slice(0, 3).join('; ')}`,
    );
  }
  process.send?.({ type: 'opened', sockets: plans.length });
}

function report(): void {
  const cpu = process.cpuUsage(cpuAtMeasure ?? undefined);
  loopDelay.disable();
  const counts = followers.map((follower) => follower.next);
  process.send?.({
    type: 'report',
    latency: summarize(latencies.subarray(0, samples) as unknown as number[]),
    deliveries,
    minPerSocket: counts.length === 0 ? 0 : Math.min(...counts),
    errors,
    idleDeliveries,
    worstBySecond: Array.from(worstBySecond, (worst) => worst ?? 0),
    cpuMicros: cpu.user + cpu.system,
    loopDelay: loopDelayOf(loopDelay),
  });
}

process.on('message', (message: { type: string; chunks?: number; warmup?: number }) => {
  if (message.type === 'open') {
    openAll(message as unknown as Open).catch((error: unknown) => {
      process.send?.({ type: 'failed', error: String(error) });
    });
  } else if (message.type === 'measure') {
    chunks = message.chunks ?? 0;
    warmup = message.warmup ?? 0;
    cpuAtMeasure = process.cpuUsage();
    loopDelay.reset();
    loopDelay.enable();
    process.send?.({ type: 'measuring' });
  } else if (message.type === 'count') {
    const complete = followers.reduce((n, follower) => n + (follower.next >= chunks ? 1 : 0), 0);
    process.send?.({ type: 'counted', deliveries, complete });
  } else if (message.type === 'report') {
    report();
  } else if (message.type === 'close') {
    for (const socket of sockets) socket.terminate();
    process.send?.({ type: 'closed' });
    setTimeout(() => process.exit(0), 100);
  }
});
