import { ACTIVE_PHASES, type EventSink, JobPhase } from '@agent-teams/core';
import type { Kysely } from 'kysely';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ownerSpendToday } from '../storage/budgets.js';
import type { Database } from '../storage/database-types.js';
import { UNFINISHED } from '../storage/job-reads.js';
import { literalPhases } from '../storage/literal-phase.js';
import { boundedClusterRead, METRICS_DATABASE_TIMEOUT_MS, METRICS_READ_ABANDON_MS } from './cluster-read.js';

/** The prefix of every metric the server exports. */
export const METRIC_PREFIX = 'agent_teams_';

/** What the live endpoint reports at scrape time. */
export interface LiveFigures {
  readonly sockets: number;
  readonly subscriptionGroups: number;
}

/**
 * The server's Prometheus metrics (`/metrics`), one registry per application (no global one, so
 * several applications in one process, as in tests, never share figures).
 *
 * @remarks Job counts and model usage are read from the database at scrape time, so they are
 * the figures of the whole cluster, also right after a restart; admissions, turn durations, live
 * figures and the event lag are this server's own.
 */
export interface ServerMetrics {
  readonly registry: Registry;
  /** Turns this server started, by runtime. */
  readonly admissions: Counter<'runtime'>;
  /** Scheduler passes on this server, by kind: with admission, or only claiming. */
  readonly schedulerPasses: Counter<'kind'>;
  /** Active jobs this server took over from another holder (a crashed, stalled or stopped server). */
  readonly jobsTakenOver: Counter;
  /** How long turns took from start to their end (or a question), by runtime and outcome. */
  readonly turnSeconds: Histogram<'runtime' | 'outcome'>;
  /** Told about other servers' events as they arrive: observes their lag. */
  readonly remoteEvents: EventSink;
  /** Sets where the live figures come from (the server is built after the metrics). */
  setLive(read: () => LiveFigures): void;
  /** The exposition text and its content type. */
  render(): Promise<{ text: string; contentType: string }>;
}

/** Buckets of turn durations in seconds: instant scripted turns up to long model turns. */
const TURN_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600];
/** Buckets of the event lag across servers in seconds (poll default 250 ms). */
const LAG_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Phases waiting for a slot (to start, or to submit a person's answer): `state="queued"`. */
const QUEUED_PHASES: readonly JobPhase[] = [JobPhase.QUEUED, JobPhase.ANSWERED];
/** Phases waiting for a person or a change, holding no slot: `state="waiting"`. */
const WAITING_PHASES: readonly JobPhase[] = [JobPhase.WAITING_INPUT, JobPhase.WAITING_CHANGE];
/** Every unfinished phase: the gauge counts each unfinished job once. */
const UNFINISHED_PHASES: readonly JobPhase[] = [...ACTIVE_PHASES, ...QUEUED_PHASES, ...WAITING_PHASES];

/** The `state` label of an unfinished phase. */
function stateOf(phase: string): 'active' | 'queued' | 'waiting' {
  if ((QUEUED_PHASES as readonly string[]).includes(phase)) return 'queued';
  return (WAITING_PHASES as readonly string[]).includes(phase) ? 'waiting' : 'active';
}

/**
 * Unfinished jobs by owner and phase, for the `jobs` gauge. `unfinished = 1` changes no answer
 * (every phase asked is unfinished) but lets the read walk the partial index of unfinished jobs
 * instead of scanning an index of every job ever run (decision 0231); the phases are literals
 * (decision 0235).
 */
export function unfinishedJobCounts(db: Kysely<Database>) {
  return db
    .selectFrom('jobs')
    .select(['owner', 'phase', (eb) => eb.fn.countAll<string | number>().as('count')])
    .where('unfinished', '=', UNFINISHED)
    .where('phase', 'in', literalPhases(UNFINISHED_PHASES))
    .groupBy(['owner', 'phase']);
}

/** Options of {@link createMetrics}. */
export interface MetricsOptions {
  /** How long a scrape waits for each database read (default {@link METRICS_DATABASE_TIMEOUT_MS}). */
  readonly databaseTimeoutMs?: number;
  /** How long a read may stay unanswered before a scrape reads again (default {@link METRICS_READ_ABANDON_MS}). */
  readonly readAbandonMs?: number;
}

/**
 * Creates the metrics over the application's database (null: the job and usage gauges stay empty).
 *
 * @remarks A scrape still answers while the database fails or does not answer within
 * `databaseTimeoutMs`: the job and spend gauges are left out of it and the usage counters keep the
 * figures of their last read (set to 0, a counter would read as reset and then jump back), so the
 * server's own figures stay visible during an outage.
 */
export function createMetrics(
  db: Kysely<Database> | null,
  now: () => number,
  options: MetricsOptions = {},
): ServerMetrics {
  const timeoutMs = options.databaseTimeoutMs ?? METRICS_DATABASE_TIMEOUT_MS;
  const abandonMs = options.readAbandonMs ?? METRICS_READ_ABANDON_MS;
  const registry = new Registry();
  const name = (suffix: string) => `${METRIC_PREFIX}${suffix}`;
  let live: () => LiveFigures = () => ({ sockets: 0, subscriptionGroups: 0 });
  const readUsage = async () =>
    db
      ? await db
          .selectFrom('model_usage')
          .select((eb) => [
            eb.fn.coalesce(eb.fn.sum<string | number>('input_tokens'), eb.lit(0)).as('input'),
            eb.fn.coalesce(eb.fn.sum<string | number>('cached_input_tokens'), eb.lit(0)).as('cached'),
            eb.fn.coalesce(eb.fn.sum<string | number>('output_tokens'), eb.lit(0)).as('output'),
            eb.fn.coalesce(eb.fn.sum<string | number>('cost'), eb.lit(0)).as('cost'),
          ])
          .executeTakeFirst()
      : undefined;
  // One read per scrape for every cluster figure: prom-client collects them at once, so they share
  // the read in flight and show the same instant. Its statements run one after another: a read
  // given up on (see `boundedClusterRead`) holds one pooled connection, not one per figure.
  const cluster = boundedClusterRead(
    async () => ({
      jobs: db ? await unfinishedJobCounts(db).execute() : [],
      usage: await readUsage(),
      spend: db ? await ownerSpendToday(db, new Date(now()).toISOString()) : new Map<string, never>(),
    }),
    timeoutMs,
    abandonMs,
  );
  new Gauge({
    name: name('jobs'),
    help: 'Unfinished jobs by owner and state (active: admitted and running; queued: waiting for a slot; waiting: for a person or a change).',
    labelNames: ['owner', 'state'],
    registers: [registry],
    async collect() {
      this.reset();
      const read = await cluster();
      if (!read.ok) return;
      for (const row of read.value.jobs) {
        this.inc({ owner: row.owner, state: stateOf(row.phase) }, Number(row.count));
      }
    },
  });
  new Counter({
    name: name('model_tokens_total'),
    help: "Model tokens used by every recorded model call (a cancelled call's estimate included), by direction (input, output).",
    labelNames: ['direction'],
    registers: [registry],
    async collect() {
      const read = await cluster();
      if (!read.ok) return;
      this.reset();
      this.inc({ direction: 'input' }, Number(read.value.usage?.input ?? 0));
      this.inc({ direction: 'output' }, Number(read.value.usage?.output ?? 0));
    },
  });
  // A counter of its own, not a third direction: these tokens are counted in `input` already.
  new Counter({
    name: name('model_cached_input_tokens_total'),
    help: "Input tokens of every recorded model call that the provider read from its prompt cache (part of model_tokens_total's input).",
    registers: [registry],
    async collect() {
      const read = await cluster();
      if (!read.ok) return;
      this.reset();
      this.inc(Number(read.value.usage?.cached ?? 0));
    },
  });
  new Counter({
    name: name('model_cost_total'),
    help: "Cost of every recorded model call (a cancelled call's estimate included), in the currency of the agents' pricing.",
    registers: [registry],
    async collect() {
      const read = await cluster();
      if (!read.ok) return;
      this.reset();
      this.inc(Number(read.value.usage?.cost ?? 0));
    },
  });
  new Gauge({
    name: name('owner_spend_today'),
    help: "Each owner's model spend in the current UTC day (what the owner's day budget counts), in tokens and in cost.",
    labelNames: ['owner', 'unit'],
    registers: [registry],
    async collect() {
      this.reset();
      const read = await cluster();
      if (!read.ok) return;
      for (const [owner, spend] of read.value.spend) {
        this.set({ owner, unit: 'tokens' }, spend.tokens);
        this.set({ owner, unit: 'cost' }, spend.cost);
      }
    },
  });
  new Gauge({
    name: name('live_sockets'),
    help: 'Open GraphQL WebSocket connections on this server.',
    registers: [registry],
    collect() {
      this.set(live().sockets);
    },
  });
  new Gauge({
    name: name('live_subscription_groups'),
    help: 'Groups of subscribers sharing one result stream on this server.',
    registers: [registry],
    collect() {
      this.set(live().subscriptionGroups);
    },
  });
  const lag = new Histogram({
    name: name('event_lag_seconds'),
    help: "Time from another server's commit to its event arriving here.",
    buckets: LAG_BUCKETS,
    registers: [registry],
  });
  return {
    registry,
    admissions: new Counter({
      name: name('admissions_total'),
      help: 'Turns this server started (admitted jobs and resumed ones; not turns taken over from another server), by runtime.',
      labelNames: ['runtime'],
      registers: [registry],
    }),
    schedulerPasses: new Counter({
      name: name('scheduler_passes_total'),
      help: 'Scheduler passes on this server, by kind (admission: admits, claims and drives; claim: claims and drives only).',
      labelNames: ['kind'],
      registers: [registry],
    }),
    jobsTakenOver: new Counter({
      name: name('jobs_taken_over_total'),
      help: "Active jobs this server took over from another server (dead, expired or stopped; on SQLite, the file's previous process).",
      registers: [registry],
    }),
    turnSeconds: new Histogram({
      name: name('turn_duration_seconds'),
      help: 'Time from the start of a turn to its end or its question, by runtime and outcome.',
      labelNames: ['runtime', 'outcome'],
      buckets: TURN_BUCKETS,
      registers: [registry],
    }),
    remoteEvents: {
      published(events) {
        for (const event of events) lag.observe(Math.max(0, now() - Date.parse(event.createdAt)) / 1000);
      },
    },
    setLive(read) {
      live = read;
    },
    async render() {
      return { text: await registry.metrics(), contentType: registry.contentType };
    },
  };
}
