/**
 * The client side of the `live` benchmark, run in its own process (`fork`): opens N WebSockets
 * speaking graphql-transport-ws, each subscribed to one team's `teamEvents`, and records when
 * each event arrives (wall clock, `performance.timeOrigin + performance.now()`, comparable across
 * processes on one machine).
 *
 * @remarks The clients speak the protocol directly (init, subscribe, pong) rather than through
 * the graphql-ws client library, so the client process spends as little CPU per message as
 * possible and the numbers describe the server. The protocol itself is exercised with the real
 * graphql-ws client in `test/live/`.
 *
 * IPC: parent → `{ type: 'start', url, token, teamId, afterSeq, count }`; child → `{ type: 'ready' }`
 * when every socket is acknowledged and subscribed; parent → `{ type: 'count', seq }`; child →
 * `{ type: 'counted', n }`; parent → `{ type: 'report' }`; child → `{ type: 'received', bySeq, errors }`.
 */
import WebSocket from 'ws';

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

const now = () => performance.timeOrigin + performance.now();
const bySeq = new Map<number, number[]>();
let errors = 0;
const sockets: WebSocket[] = [];

function open(message: Start, onReady: () => void): void {
  const socket = new WebSocket(message.url, 'graphql-transport-ws', { perMessageDeflate: false });
  sockets.push(socket);
  socket.on('open', () =>
    socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${message.token}` } })),
  );
  socket.on('message', (data) => {
    const at = now();
    const frame = JSON.parse(data.toString()) as {
      type: string;
      payload?: { data?: { teamEvents?: { seq: number } } };
    };
    if (frame.type === 'next') {
      const seq = frame.payload?.data?.teamEvents?.seq;
      if (seq === undefined) {
        errors += 1;
        return;
      }
      let times = bySeq.get(seq);
      if (!times) {
        times = [];
        bySeq.set(seq, times);
      }
      times.push(at);
    } else if (frame.type === 'connection_ack') {
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
    } else if (frame.type === 'error') {
      errors += 1;
    }
  });
  socket.on('error', () => {
    errors += 1;
  });
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
    process.send?.({ type: 'received', bySeq: Object.fromEntries(bySeq), errors });
  } else if (message.type === 'stop') {
    for (const socket of sockets) socket.terminate();
    setTimeout(() => process.exit(0), 100);
  }
});
