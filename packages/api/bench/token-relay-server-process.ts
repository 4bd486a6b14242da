/**
 * The server side of the `token-relay` benchmark, in its own process so its CPU, RSS and event
 * loop are its own: the application as `serve` builds it (`createApp`, SQLite file, default
 * runtimes, listening on 127.0.0.1) with one agent on the `openai` runtime (`stream: true`)
 * whose `baseUrl` is the benchmark's streaming fake provider.
 *
 * IPC: parent → `{ type: 'open', database, providerUrl, turns, idleTeams, maxSubscriptions }`;
 * child → `{ type: 'opened', url, token, activeJobs, idleJobs, idleTeams }` once the idle jobs
 * wait for a person's answer (the active ones stay RUNNING, their model calls held by the provider); parent →
 * `{ type: 'count' }`; child → `{ type: 'counted', progressListeners, sockets }`; parent →
 * `{ type: 'memory' }`; child → `{ type: 'memory', rss, heap }` (after a full GC); parent →
 * `{ type: 'measure' }`; child → `{ type: 'measuring' }`; parent → `{ type: 'measured' }`; child
 * → `{ type: 'measured', cpuMicros, relayed, loopDelay, gc }` (CPU, relayed text deltas,
 * event-loop delay and GC pauses since `measure`); parent → `{ type: 'close' }`; child → `{ type: 'closed' }`.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  type AgentDefinition,
  asAgentId,
  asOwnerId,
  DEFAULT_ADMISSION_POLICY,
  type Job,
  type OwnerId,
} from '@agent-teams/core';
import { createConfigCatalog } from '../src/adapters/config-catalog.js';
import { type App, createApp } from '../src/app/create-app.js';
import { openDatabase } from '../src/storage/open-database.js';
import { answerParent } from './harness/bench-child.js';
import { BENCH_LOGGER } from './harness/bench-stack.js';
import { RelayWindow } from './harness/relay-window.js';
import { waitUntil } from './harness/stats.js';
import { ASK_PREFIX } from './harness/streaming-chat-provider.js';

const TOKEN = 'tok-relay-bench';
const OWNER: OwnerId = asOwnerId('relay-owner');

interface Open {
  readonly database: string;
  readonly providerUrl: string;
  readonly turns: number;
  readonly idleTeams: number;
  readonly maxSubscriptions: number;
}

let app: App | null = null;
let relayed = 0;
/** CPU, event-loop delay and GC pauses between `measure` and `measured`. */
const costs = new RelayWindow();

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

async function open(message: Open) {
  const agent: AgentDefinition = {
    id: asAgentId('streamer'),
    name: 'streamer',
    title: 'Streamer',
    description: 'streams from the local fake provider (benchmark)',
    runtime: 'openai',
    // The model calls wait for every subscriber to connect before they stream.
    timeoutMs: 600_000,
    settings: { model: 'bench-stream', baseUrl: message.providerUrl, apiKeyEnv: null, stream: true },
  };
  const built = await createApp({
    database: await openDatabase(message.database),
    catalog: createConfigCatalog([agent]),
    logger: BENCH_LOGGER,
    cluster: false,
    env: {},
    tokens: new Map([[TOKEN, OWNER]]),
    http: {
      rateLimit: null,
      // One owner holds every socket of the benchmark; no keep-alive ping during a run.
      live: {
        maxSubscriptionsPerOwner: message.maxSubscriptions,
        maxSocketsPerOwner: message.maxSubscriptions,
        keepAliveMs: 600_000,
      },
    },
    // Every admission slot is the one owner's (nobody else is waiting).
    scheduler: { admission: { ...DEFAULT_ADMISSION_POLICY, reservedForOthers: 0 } },
  });
  app = built;
  // Counts the text deltas the runtimes publish: what the server had to relay.
  built.progress.listen((notice) => {
    if (typeof notice.textDelta === 'string' && notice.textDelta !== '') relayed += 1;
  });
  const { url } = await built.listen(0, '127.0.0.1');
  const team = async (name: string) => {
    const created = await built.core.teams.create(OWNER, {
      clientRequestId: `relay-team-${name}`,
      name: `Relay ${name}`,
      goal: 'Measure the token relay',
      members: [
        { name: 'a', agentId: 'streamer' },
        { name: 'b', agentId: 'streamer' },
      ],
    });
    // Two members (the minimum); every request goes to the first.
    const [member] = await built.core.teams.members([created.id]);
    if (!member) throw new Error('[agent-teams/bench] team without a member');
    return { teamId: created.id, memberId: member.id };
  };
  const send = async (target: { teamId: string; memberId: string }, text: string, key: string): Promise<Job> => {
    const [job] = await built.core.requests.send(OWNER, {
      teamId: target.teamId as never,
      memberIds: [target.memberId as never],
      text,
      clientRequestId: key,
    });
    if (!job) throw new Error('[agent-teams/bench] sendRequest made no job');
    return job;
  };
  // Idle teams first: one turn each that asks the person a question, so each has a job that stays
  // unfinished without a word of progress (a finished job's jobProgress ends at once) and a quiet log.
  const idle: { teamId: string; jobId: string }[] = [];
  for (let i = 0; i < message.idleTeams; i += 1) {
    const target = await team(`idle-${i}`);
    const job = await send(target, `${ASK_PREFIX} idle ${i}`, `idle-${i}`);
    idle.push({ teamId: target.teamId, jobId: job.id });
  }
  await waitUntil(
    async () => {
      for (const { jobId } of idle) {
        if ((await built.core.jobs.get(OWNER, jobId as never))?.phase !== 'WAITING_INPUT') return false;
      }
      return true;
    },
    'the idle jobs to wait for their answer',
    60_000,
    20,
  );
  const idleTeams: { teamId: string; afterSeq: number }[] = [];
  for (const { teamId } of idle) {
    const lastSeq = (await built.core.teams.get(OWNER, teamId as never))?.lastEventSeq ?? 0;
    idleTeams.push({ teamId, afterSeq: lastSeq - 1 });
  }
  const activeJobs: string[] = [];
  for (let i = 0; i < message.turns; i += 1) {
    activeJobs.push((await send(await team(`active-${i}`), `Stream turn ${i}`, `active-${i}`)).id);
  }
  process.send?.({
    type: 'opened',
    url,
    token: TOKEN,
    activeJobs,
    idleJobs: idle.map(({ jobId }) => jobId),
    idleTeams,
  });
}

function reply(message: { type: string }): void | Promise<void> {
  if (message.type === 'open') return open(message as unknown as Open);
  if (!app) throw new Error('[agent-teams/bench] relay server not open');
  const built = app;
  switch (message.type) {
    case 'count':
      process.send?.({
        type: 'counted',
        progressListeners: built.progress.listening,
        sockets: built.server.live.connections,
      });
      return;
    case 'memory': {
      collectGarbage();
      const usage = process.memoryUsage();
      process.send?.({ type: 'memory', rss: usage.rss, heap: usage.heapUsed + usage.external });
      return;
    }
    case 'measure':
      relayed = 0;
      costs.open();
      process.send?.({ type: 'measuring' });
      return;
    case 'measured':
      process.send?.({ type: 'measured', relayed, ...costs.close() });
      return;
    case 'close':
      return built.close().then(() => {
        process.send?.({ type: 'closed' });
        process.exit(0);
      });
  }
}

answerParent(reply);
