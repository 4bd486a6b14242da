/**
 * One server of the cluster benchmarks (`cluster-dispatch`, `cluster-events`), run in its own
 * process so each server has its own event loop, pool and change feed, as in production: the
 * application `serve` builds ({@link openClusterApp}), listening for HTTP when asked.
 *
 * IPC (parent → child, then the answer): `{ type: 'open', database, serverId, cluster, http }` →
 * `{ type: 'opened', url }`; `{ type: 'teams', owner, count, size }` → `{ type: 'teams', teams }` (id, member ids, last seq);
 * `{ type: 'send', ref, owner, teamId, memberIds, key, text }` → `{ type: 'sent', ref, jobIds,
 * called, accepted, statements }`; `{ type: 'settle', ref, jobId }` → `{ type: 'settled', ref }` once the job
 * is finished (read every 2 ms); `{ type: 'watch', teamId }` → `{ type: 'watching' }`; `{ type: 'report' }`
 * → `{ type: 'report', committed, stats, cpuMicros }`; `{ type: 'close' }` → `{ type: 'closed' }`,
 * then the process exits. Unasked: `{ type: 'started', jobId, at, serverId, statements }` whenever the
 * runtime's `start` is entered (`statements`: data statements this server ran so far, see
 * `statement-counter.ts`). Every time is on the machine's monotonic clock (`live-clock.ts`), the same
 * in every process, so times taken by different servers subtract directly.
 */
import { asOwnerId, isTerminal, type JobId, type MemberId, type TeamEvent, type TeamId } from '@agent-teams/core';
import type { App } from '../src/app/create-app.js';
import { openDatabase } from '../src/storage/open-database.js';
import { BENCH_AGENTS } from './harness/bench-stack.js';
import { type ClusterFeedOptions, openClusterApp } from './harness/cluster-stack.js';
import { type CountedDatabase, countStatements } from './harness/statement-counter.js';
import { waitUntil } from './harness/stats.js';
import { monotonicMs } from './live-clock.js';

interface Open {
  readonly database: string;
  readonly serverId: string;
  readonly cluster: ClusterFeedOptions | null;
  readonly http: boolean;
  /** Statements prepared once per connection (PostgreSQL; default true). */
  readonly prepared?: boolean;
}

let stack: App | null = null;
let database: CountedDatabase | null = null;
let serverId = '';
let teamCounter = 0;
const watched = new Set<string>();
/** `teamId#seq` → when this server committed it. */
const committed = new Map<string, number>();
const cpuAtOpen = process.cpuUsage();

function opened(): App {
  if (stack === null) throw new Error('not open');
  return stack;
}

async function open(message: Open): Promise<unknown> {
  serverId = message.serverId;
  database = countStatements(await openDatabase(message.database, { postgresPrepared: message.prepared !== false }));
  const counted = database;
  // As `serve` does (migrating is a no-op on the PostgreSQL databases the benchmark migrated already).
  stack = await openClusterApp(database, {
    serverId,
    cluster: message.cluster,
    onStart: (jobId) =>
      process.send?.({ type: 'started', jobId, at: monotonicMs(), serverId, statements: counted.statements() }),
    onEvents: (events: readonly TeamEvent[]) => {
      const at = monotonicMs();
      for (const event of events) if (watched.has(event.teamId)) committed.set(`${event.teamId}#${event.seq}`, at);
    },
  });
  if (!message.http) {
    await stack.start();
    return { type: 'opened', url: null };
  }
  return { type: 'opened', url: (await stack.listen(0, '127.0.0.1')).url };
}

async function teams(message: { owner: string; count: number; size: number }): Promise<unknown> {
  const { core } = opened();
  const owner = asOwnerId(message.owner);
  const made: { teamId: string; memberIds: string[]; lastEventSeq: number }[] = [];
  for (let i = 0; i < message.count; i += 1) {
    teamCounter += 1;
    const team = await core.teams.create(owner, {
      clientRequestId: `${serverId}-team-${teamCounter}`,
      name: `Cluster bench ${teamCounter}`,
      goal: 'Measure the cluster',
      members: Array.from({ length: message.size }, (_, index) => ({
        name: `m${index}`,
        agentId: BENCH_AGENTS[index % BENCH_AGENTS.length]?.id as string,
      })),
    });
    const members = await core.teams.members([team.id]);
    const lastEventSeq = (await core.teams.get(owner, team.id))?.lastEventSeq ?? 0;
    made.push({ teamId: team.id, memberIds: members.map((member) => member.id), lastEventSeq });
  }
  return { type: 'teams', teams: made };
}

async function send(message: {
  ref: number;
  owner: string;
  teamId: string;
  memberIds: string[];
  key: string;
  text: string;
}): Promise<unknown> {
  const called = monotonicMs();
  const jobs = await opened().core.requests.send(asOwnerId(message.owner), {
    teamId: message.teamId as TeamId,
    memberIds: message.memberIds as MemberId[],
    text: message.text,
    clientRequestId: message.key,
  });
  const accepted = monotonicMs();
  const statements = database?.statements() ?? 0;
  return { type: 'sent', ref: message.ref, jobIds: jobs.map((job) => job.id), called, accepted, statements };
}

async function settle(message: { ref: number; jobId: string }): Promise<unknown> {
  const { store } = opened();
  await waitUntil(
    async () => {
      const [job] = await store.findJobs([message.jobId as JobId]);
      return job !== undefined && isTerminal(job.phase);
    },
    `job ${message.jobId} finished`,
    30_000,
    2,
  );
  return { type: 'settled', ref: message.ref };
}

async function close(): Promise<void> {
  await stack?.close();
  process.send?.({ type: 'closed' });
  setTimeout(() => process.exit(0), 50);
}

process.on('message', (message: { type: string }) => {
  const answer = (): Promise<unknown> => {
    switch (message.type) {
      case 'open':
        return open(message as unknown as Open);
      case 'teams':
        return teams(message as never);
      case 'send':
        return send(message as never);
      case 'settle':
        return settle(message as never);
      case 'watch':
        watched.add((message as unknown as { teamId: string }).teamId);
        return Promise.resolve({ type: 'watching' });
      case 'report': {
        const cpu = process.cpuUsage(cpuAtOpen);
        const stats = stack?.cluster?.stats ?? null;
        return Promise.resolve({
          type: 'report',
          committed: Object.fromEntries(committed),
          stats,
          cpuMicros: cpu.user + cpu.system,
        });
      }
      case 'close':
        return close().then(() => null);
      default:
        return Promise.resolve(null);
    }
  };
  answer()
    .then((reply) => {
      if (reply !== null) process.send?.(reply);
    })
    .catch((error: unknown) => {
      process.send?.({ type: 'failed', error: String((error as Error)?.stack ?? error) });
    });
});
