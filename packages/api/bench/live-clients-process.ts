/**
 * The client side of the `live` benchmark, run in its own process (`fork`): opens N WebSockets
 * speaking graphql-transport-ws, each subscribed to one team's `teamEvents`, and records when
 * each event arrives on the machine's monotonic clock (`process.hrtime`, CLOCK_MONOTONIC: one
 * clock for every process of the machine, so the server's commit times compare directly).
 *
 * @remarks The clients speak the protocol directly (init, subscribe, pong) over a minimal
 * WebSocket client ({@link RawWebSocket}) rather than through graphql-ws and `ws`, and read a
 * `next` frame's seq from its bytes instead of parsing the JSON, so the client process spends as
 * little CPU per message as possible: it shares the machine's two cores with the server, and a
 * busy client would add its own queueing to the latency. Its CPU and event-loop delay are reported, so a run shows which side was the
 * bottleneck. The protocol itself is exercised with the real graphql-ws client in `test/live/`.
 *
 * IPC: parent → `{ type: 'start', url, token, teamId, afterSeq, count }`; child → `{ type: 'ready' }`
 * when every socket is acknowledged and subscribed; parent → `{ type: 'count', seq }`; child →
 * `{ type: 'counted', n }`; parent → `{ type: 'report' }`; child → `{ type: 'received', bySeq,
 * errors, cpuMicros, loopDelay }` (CPU and event-loop delay since the last `ready`).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loopDelayOf, monotonicMs } from './live-clock.js';
import { RawWebSocket } from './live-raw-socket.js';

interface Start {
  readonly type: 'start';
  readonly url: string;
  readonly token: string;
  readonly teamId: string;
  readonly afterSeq: number;
  readonly count: number;
}

const QUERY = `subscription($teamId: ID!, $afterSeq: Int) { teamEvents(teamId: $teamId, afterSeq: $afterSeq) {
  __typename seq ... on JobChanged { job { id status } } ... on MemberChanged { member { id name status } }
  ... on RecordAppended { message { id kind text } } } }`;

/**
 * Both servers serialize a `next` as `{"id":…,"type":"next","payload":…}` (graphql-ws with
 * `JSON.stringify` in that key order, ours spliced the same way) and the document asks for
 * `__typename` then `seq`, so the first `"seq":` of a next frame is the event's seq: a quote
 * inside a JSON string is escaped, so the key cannot come from a text field.
 */
const NEXT_PREFIX = Buffer.from('{"id":"1","type":"next","payload":');
const SEQ_KEY = Buffer.from('"seq":');
const ZERO = 0x30;

const bySeq = new Map<number, number[]>();
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
let errors = 0;
let cpuAtReady: NodeJS.CpuUsage | null = null;
const sockets: RawWebSocket[] = [];

/** The seq of a `next` frame of subscription "1", or -1 for any other frame. */
function nextSeq(data: Buffer): number {
  if (data.length <= NEXT_PREFIX.length || data.compare(NEXT_PREFIX, 0, NEXT_PREFIX.length, 0, NEXT_PREFIX.length)) {
    return -1;
  }
  let at = data.indexOf(SEQ_KEY, NEXT_PREFIX.length);
  if (at < 0) return Number.NaN;
  at += SEQ_KEY.length;
  let seq = 0;
  for (let digit = (data[at] ?? 0) - ZERO; digit >= 0 && digit <= 9; digit = (data[++at] ?? 0) - ZERO) {
    seq = seq * 10 + digit;
  }
  return seq;
}

function record(seq: number, at: number): void {
  let times = bySeq.get(seq);
  if (!times) {
    times = [];
    bySeq.set(seq, times);
  }
  times.push(at);
}

function open(message: Start, onReady: () => void): void {
  const socket: RawWebSocket = new RawWebSocket(message.url, 'graphql-transport-ws', {
    onOpen: () =>
      socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${message.token}` } })),
    onText: (data) => {
      const at = monotonicMs();
      const seq = nextSeq(data);
      if (seq >= 0) return record(seq, at);
      if (Number.isNaN(seq)) {
        errors += 1;
        return;
      }
      const frame = JSON.parse(data.toString()) as { type: string };
      if (frame.type === 'connection_ack') {
        socket.send(
          JSON.stringify({
            id: '1',
            type: 'subscribe',
            payload: { query: QUERY, variables: { teamId: message.teamId, afterSeq: message.afterSeq } },
          }),
        );
        onReady();
      } else if (frame.type === 'ping') {
        socket.send('{"type":"pong"}');
      } else if (frame.type !== 'pong') {
        errors += 1;
      }
    },
    onError: () => {
      errors += 1;
    },
  });
  sockets.push(socket);
}

async function start(message: Start): Promise<void> {
  let ready = 0;
  for (let i = 0; i < message.count; i += 1) {
    open(message, () => {
      ready += 1;
    });
    // Open sockets in small batches so the server's accept queue is not flooded.
    if (i % 50 === 49) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const deadline = Date.now() + 120_000;
  while (ready < message.count) {
    if (Date.now() > deadline) throw new Error(`only ${ready} of ${message.count} clients connected`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  cpuAtReady = process.cpuUsage();
  loopDelay.reset();
  loopDelay.enable();
  process.send?.({ type: 'ready' });
}

process.on('message', (message: { type: string; seq?: number }) => {
  if (message.type === 'start') {
    start(message as unknown as Start).catch((error: unknown) => {
      process.send?.({ type: 'failed', error: String(error) });
    });
  } else if (message.type === 'count') {
    process.send?.({ type: 'counted', n: bySeq.get(message.seq ?? -1)?.length ?? 0 });
  } else if (message.type === 'report') {
    const cpu = process.cpuUsage(cpuAtReady ?? undefined);
    loopDelay.disable();
    process.send?.({
      type: 'received',
      bySeq: Object.fromEntries(bySeq),
      errors,
      cpuMicros: cpu.user + cpu.system,
      loopDelay: loopDelayOf(loopDelay),
    });
  } else if (message.type === 'stop') {
    for (const socket of sockets) socket.terminate();
    setTimeout(() => process.exit(0), 100);
  }
});
