/**
 * The server side of the `live` benchmark, run in its own process per WebSocket engine, so its
 * CPU and RSS are its own: the application `createApp` builds (not started, so requests stay
 * queued) serving the chosen WebSocket engine, and a writer committing requests at a fixed rate.
 *
 * IPC: parent → `{ type: 'open', engine, database, subscribers }`; child → `{ type: 'listening',
 * url, teamId, afterSeq }`; parent (a tenth of the clients subscribed) → `{ type: 'baseline', sockets }`;
 * child → `{ type: 'baselined' }`; parent (all clients subscribed) → `{ type: 'run',
 * eventsPerSecond, seconds }`; child → `{ type: 'ran', lastSeq, firstMeasured, rssBytesPerSocket }`;
 * parent (once every client has the last event) → `{ type: 'finish' }`; child → `{ type: 'finished',
 * committedAt, cpuMicros, elapsedMs, loopDelay }` (commit times on the monotonic clock of
 * `live-clock.ts`, taken when the store publishes a commit's events, right after it committed).
 */
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger, TeamEvent } from '@agent-teams/core';
import { createSystemClock } from '../src/adapters/system-clock.js';
import { type Authenticator, createAuthenticator } from '../src/auth/authenticator.js';
import type { AgentTeamsServer } from '../src/server/create-server.js';
import { openDatabase } from '../src/storage/open-database.js';
import { type BenchStack, benchOwner, openBenchStack } from './harness/bench-stack.js';
import { startGraphqlWs } from './harness/graphql-ws-server.js';
import { loopDelayOf, monotonicMs } from './live-clock.js';

export const LIVE_BENCH_TOKEN = 'tok-live-bench';

function collectGarbage(): void {
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    gc();
  } catch {
    // No GC available: the RSS figure is noisier, not wrong.
  }
}

/** Memory V8 accounts for: JS heap plus Buffers and other external memory. */
function heapBytes(): number {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

const committedAt = new Map<number, number>();
let watched: string | null = null;
let stack: BenchStack | null = null;
let server: AgentTeamsServer | null = null;
let reference: { close(): Promise<void> } | null = null;
let target: Awaited<ReturnType<BenchStack['teams']>>[number] | null = null;
let engine = 'shared';
let subscribers = 0;
let rssBefore = 0;
let heapBefore = 0;
let baselineSockets = 0;
let cpu: NodeJS.CpuUsage | null = null;
let started = 0;
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
const owner = benchOwner(0);
const SILENT: Logger = { info: () => {}, warn: () => {}, error: () => {} };

async function open(message: { engine: 'shared' | 'graphql-ws'; database: string; subscribers: number }) {
  engine = message.engine;
  subscribers = message.subscribers;
  const tokens = new Map<string, string>([[LIVE_BENCH_TOKEN, owner]]);
  stack = await openBenchStack(await openDatabase(message.database), {
    onEvents: (events: readonly TeamEvent[]) => {
      const at = monotonicMs();
      for (const event of events) if (event.teamId === watched) committedAt.set(event.seq, at);
    },
    tokens,
    http: {
      live: {
        maxSubscriptionsPerOwner: message.subscribers * 2,
        maxSocketsPerOwner: message.subscribers * 2,
        keepAliveMs: 60_000,
      },
    },
  });
  // The scheduler stays stopped: the requests stay queued, each commit is one burst of events.
  server = stack.app.server;
  const { url } =
    message.engine === 'graphql-ws'
      ? await listenGraphqlWs(server, createAuthenticator({ tokens, clock: createSystemClock(), logger: SILENT }))
      : await server.listen(0, '127.0.0.1');
  target = (await stack.teams(owner, 1, 2))[0] ?? null;
  if (!target) throw new Error('no team');
  watched = target.team.id;
  const afterSeq = (await stack.core.teams.get(owner, target.team.id))?.lastEventSeq ?? 0;
  process.send?.({ type: 'listening', url, teamId: target.team.id, afterSeq });
}

/**
 * The stock graphql-ws path: the same Yoga on an HTTP server of its own, with graphql-ws's
 * `useServer` on its WebSocket (the production server's own socket stays unused).
 */
async function listenGraphqlWs(built: AgentTeamsServer, auth: Authenticator): Promise<{ url: string }> {
  const http = createHttpServer(built.yoga);
  const ws = startGraphqlWs(
    http,
    built.yoga,
    async (authorization) => (await auth.authenticate(authorization)) !== null,
  );
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  reference = {
    async close() {
      await ws.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}` };
}

/** RSS with the first tenth of the sockets open: the baseline of the per-socket figure. */
async function baseline(message: { sockets: number }) {
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  collectGarbage();
  rssBefore = process.memoryUsage().rss;
  heapBefore = heapBytes();
  baselineSockets = message.sockets;
  process.send?.({ type: 'baselined' });
}

/** Commits sent before the measured ones (see `run`). */
const WARM_UP_COMMITS = 5;

async function run(message: { eventsPerSecond: number; seconds: number }) {
  if (!stack || !target) throw new Error('not open');
  const { core } = stack;
  const team = target;
  // Every client sent its subscribe right after the ack; let the server set them all up.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  collectGarbage();
  const rssBytesPerSocket = (process.memoryUsage().rss - rssBefore) / (subscribers - baselineSockets);
  const heapBytesPerSocket = (heapBytes() - heapBefore) / (subscribers - baselineSockets);
  let sent = 0;
  const send = (text: string) =>
    core.requests.send(owner, {
      teamId: team.team.id,
      memberIds: [team.members[sent % team.members.length]?.id as string],
      text,
      clientRequestId: `live-${engine}-${sent++}`,
    });
  const before = committedAt.size;
  await send('warm up');
  const eventsPerCommit = committedAt.size - before;
  const intervalMs = (1000 * eventsPerCommit) / message.eventsPerSecond;
  // A few more commits at the measured rate, not counted: the first deliveries through a fresh
  // process pay for JIT compilation and first allocations, which is not the steady state.
  for (let i = 1; i < WARM_UP_COMMITS; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    await send('warm up');
  }
  const firstMeasured = Math.max(...committedAt.keys()) + 1;
  await new Promise((resolve) => setTimeout(resolve, 500));
  // A team holds at most 100 requests.
  const commits = Math.min(90 - WARM_UP_COMMITS, Math.round((message.seconds * 1000) / intervalMs));
  cpu = process.cpuUsage();
  loopDelay.enable();
  started = performance.now();
  for (let i = 0; i < commits; i += 1) {
    const wait = started + i * intervalMs - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    await send(`event ${i}`);
  }
  process.send?.({
    type: 'ran',
    lastSeq: Math.max(...committedAt.keys()),
    firstMeasured,
    rssBytesPerSocket,
    heapBytesPerSocket,
  });
}

async function finish() {
  const used = process.cpuUsage(cpu ?? undefined);
  const elapsedMs = performance.now() - started;
  loopDelay.disable();
  process.send?.({
    type: 'finished',
    committedAt: Object.fromEntries(committedAt),
    cpuMicros: used.user + used.system,
    elapsedMs,
    loopDelay: loopDelayOf(loopDelay),
  });
  await reference?.close();
  await stack?.close();
  process.exit(0);
}

process.on('message', (message: { type: string }) => {
  const step =
    message.type === 'open'
      ? open(message as never)
      : message.type === 'baseline'
        ? baseline(message as never)
        : message.type === 'run'
          ? run(message as never)
          : message.type === 'finish'
            ? finish()
            : Promise.resolve();
  step.catch((error: unknown) => {
    process.send?.({ type: 'failed', error: String((error as Error)?.stack ?? error) });
  });
});
