/**
 * The floor of the `token-relay` benchmark, in its own process: a bare relay that does only what
 * any relay must, so the real server's figures can be read against what this machine allows.
 * It opens the same streamed model calls to the same provider, reads their SSE, and writes each
 * content delta as one prebuilt graphql-transport-ws `next` frame to every socket that
 * subscribed to that call: one shared buffer, one `write` per socket, no GraphQL, no database,
 * no authorization, no per-subscriber state beyond the socket.
 *
 * IPC (the subset of `token-relay-server-process.ts` the active phase uses): parent → `{ type:
 * 'open', providerUrl, turns }`; child → `{ type: 'opened', url, token, activeJobs, idleJobs: [],
 * idleTeams: [] }` once every model call is open; parent → `{ type: 'count' }`; child → `{ type:
 * 'counted', progressListeners, sockets }`; parent → `{ type: 'measure' }` / `{ type: 'measured' }`
 * as there; parent → `{ type: 'close' }`; child → `{ type: 'closed' }`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import { answerParent } from './harness/bench-child.js';
import { RelayWindow } from './harness/relay-window.js';

interface Open {
  readonly providerUrl: string;
  readonly turns: number;
}

/** The subscribers of each model call, by the id handed out for it. */
const groups = new Map<string, WebSocket[]>();
let sockets = 0;
let subscribed = 0;
let relayed = 0;
/** CPU, event-loop delay and GC pauses between `measure` and `measured`. */
const costs = new RelayWindow();
let close: (() => Promise<void>) | null = null;

/** One complete WebSocket text frame (RFC 6455: final, unmasked) of `text`. */
function textFrame(text: string): Buffer {
  const body = Buffer.from(text);
  const header =
    body.length < 126
      ? Buffer.from([0x81, body.length])
      : Buffer.from([0x81, 126, body.length >> 8, body.length & 0xff]);
  return Buffer.concat([header, body]);
}

/** The `next` frame every subscriber of a call gets for one delta (all subscribe as id "1"). */
function nextFrame(delta: string): Buffer {
  return textFrame(
    `{"id":"1","type":"next","payload":{"data":{"jobProgress":{"textDelta":${JSON.stringify(delta)},"toolCall":null}}}}`,
  );
}

function relay(jobId: string, delta: string): void {
  relayed += 1;
  const frame = nextFrame(delta);
  for (const socket of groups.get(jobId) ?? []) {
    // Straight to the TCP socket under `ws`, as the real server's frame writer does.
    (socket as unknown as { _socket: { write(data: Buffer): boolean } })._socket.write(frame);
  }
}

/** Opens one streamed model call and relays its content deltas to `jobId`'s subscribers. */
async function follow(providerUrl: string, jobId: string, opened: () => void): Promise<void> {
  const response = await fetch(`${providerUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'bench-stream', stream: true, messages: [{ role: 'user', content: jobId }] }),
  });
  if (!response.ok || response.body === null) throw new Error(`provider answered ${response.status}`);
  opened();
  const decoder = new TextDecoder();
  let pending = '';
  const reader = response.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    pending += decoder.decode(read.value, { stream: true });
    let end = pending.indexOf('\n\n');
    while (end >= 0) {
      const event = pending.slice(0, end);
      pending = pending.slice(end + 2);
      end = pending.indexOf('\n\n');
      if (!event.startsWith('data: ') || event === 'data: [DONE]') continue;
      const chunk = JSON.parse(event.slice(6)) as { choices?: { delta?: { content?: unknown } }[] };
      const content = chunk.choices?.[0]?.delta?.content;
      if (typeof content === 'string' && content !== '') relay(jobId, content);
    }
  }
}

function onConnection(socket: WebSocket): void {
  sockets += 1;
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { type: string; payload?: { variables?: { jobId?: string } } };
    if (message.type === 'connection_init') socket.send('{"type":"connection_ack"}');
    else if (message.type === 'ping') socket.send('{"type":"pong"}');
    else if (message.type === 'subscribe') {
      const jobId = message.payload?.variables?.jobId ?? '';
      const group = groups.get(jobId);
      if (group === undefined) socket.close(4400, 'unknown job');
      else {
        group.push(socket);
        subscribed += 1;
      }
    }
  });
}

async function open(message: Open): Promise<void> {
  const server = createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ server, path: '/graphql', perMessageDeflate: false });
  wss.on('connection', (socket) => {
    (socket as unknown as { _socket: { setNoDelay(on: boolean): void } })._socket.setNoDelay(true);
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = async () => {
    for (const client of wss.clients) client.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  const activeJobs = Array.from({ length: message.turns }, (_, i) => `floor-${i}`);
  for (const jobId of activeJobs) groups.set(jobId, []);
  await Promise.all(
    activeJobs.map(
      (jobId) =>
        new Promise<void>((resolve, reject) => {
          follow(message.providerUrl, jobId, resolve).catch((error: unknown) => {
            // Before the call opened: `open` fails; later: the run is reported failed.
            reject(error);
            process.send?.({ type: 'failed', error: String((error as Error)?.stack ?? error) });
          });
        }),
    ),
  );
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.send?.({ type: 'opened', url, token: 'floor', activeJobs, idleJobs: [], idleTeams: [] });
}

function reply(message: { type: string }): void | Promise<void> {
  switch (message.type) {
    case 'open':
      return open(message as unknown as Open);
    case 'count':
      process.send?.({ type: 'counted', progressListeners: subscribed, sockets });
      return;
    case 'measure':
      relayed = 0;
      costs.open();
      process.send?.({ type: 'measuring' });
      return;
    case 'measured':
      process.send?.({ type: 'measured', relayed, ...costs.close() });
      return;
    case 'close':
      return (close?.() ?? Promise.resolve()).then(() => {
        process.send?.({ type: 'closed' });
        process.exit(0);
      });
  }
}

answerParent(reply);
