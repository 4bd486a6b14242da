import type {
  AgentCatalog,
  AgentRuntime,
  BudgetPolicy,
  Clock,
  Core,
  EventSink,
  IdGenerator,
  Logger,
  RuntimeRegistry,
  TeamStore,
} from '@agent-teams/core';
import type { MemberRunTokens } from '../adapters/member-run-tokens.js';
import type { AuthenticatorDeps } from '../auth/authenticator.js';
import type { JwtSettings } from '../auth/jwt-key.js';
import type { ClusterChanges } from '../cluster/create-cluster-changes.js';
import type { EventHub } from '../events/event-hub.js';
import type { ProgressHub } from '../events/progress-hub.js';
import type { SpendGuard } from '../runtimes/spend-guard.js';
import type { Scheduler, SchedulerOptions } from '../scheduler/create-scheduler.js';
import type { AgentTeamsServer, ServerDeps } from '../server/create-server.js';
import type { KyselyTeamStore } from '../storage/kysely-team-store.js';
import type { OpenDatabaseOptions, OpenedDatabase } from '../storage/open-database.js';
import type { RunRides } from '../storage/run-rides.js';

/** A runtime the application runs; `dispose` (when present) is called, and awaited, on close. */
export type AppRuntime = AgentRuntime & { dispose?(): void | Promise<void> };

/** What a runtime is built over (see {@link AppOptions.runtimes}). */
export interface RuntimeParts {
  /** The application's database; null when the store is not SQL (tests on the in-memory fake). */
  readonly database: OpenedDatabase | null;
  readonly store: TeamStore;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Where `apiKeyEnv` names are looked up. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * The MCP URL remote agents reach their team tools at: `publicUrl`, else the address the
   * application listens on (a call made before it listens waits for it).
   */
  readonly mcpUrl: () => Promise<string>;
  /** Checks model calls against the team and owner budgets (give it to runtimes that call models). */
  readonly spend: SpendGuard;
  /**
   * Where a durable runtime's final write of a run waits for the job write that records the run
   * (one commit instead of two; `storage/run-rides.ts`); null without a database.
   */
  readonly rides: RunRides | null;
}

/** This server among the servers sharing a database. */
export interface LeaseSettings {
  /** This incarnation's id (default: random, `srv_…`; servers sharing one id share their jobs). */
  readonly serverId?: string;
  /** `--lease-ttl` (default 15 s). */
  readonly ttlMs?: number;
  /** `--heartbeat` (default 5 s). */
  readonly heartbeatMs?: number;
}

/** How this server follows the others' commits (PostgreSQL). */
export interface ClusterSettings {
  /** `--event-poll` (10..250 ms, default 250). */
  readonly pollMs?: number;
  /** LISTEN/NOTIFY wake-ups (default true); false leaves polling alone. */
  readonly notify?: boolean;
}

/**
 * What the HTTP and WebSocket server shows and how it guards itself (see {@link ServerDeps}: the
 * token hint, the pages, the WebSocket limits and allowed origins, the body limit, the rate limit
 * and its clock).
 */
export type HttpSettings = Pick<
  ServerDeps,
  'tokenHint' | 'loopbackHostsOnly' | 'pageHtml' | 'widgetBundle' | 'live' | 'maxBodyBytes' | 'rateLimit' | 'clock'
> & {
  /** Wraps the core the resolvers call (tests inject failures at the edge). */
  readonly core?: (core: Core) => Core;
};

/**
 * What {@link import('./create-app.js').createApp} builds the application from: the explicit
 * seams a test or a benchmark replaces, everything else as in production.
 */
export interface AppOptions {
  /**
   * The database: a SQLite file, `:memory:` (default), a `postgres://` URL, or one already opened.
   * It is migrated, and closed with the application. Null: no SQL at all (give `store` and
   * `runtimes`).
   */
  readonly database?: string | OpenedDatabase | null;
  /** How a database given by name is opened (`sqliteSynchronous`, the PostgreSQL pool). */
  readonly databaseOptions?: OpenDatabaseOptions;
  /** The agents members may use. */
  readonly catalog: AgentCatalog;
  /** Owner bearer tokens: token → owner id. A test may delete entries to revoke a token. */
  readonly tokens?: ReadonlyMap<string, string>;
  /**
   * Host-signed tokens (`auth.jwt` with its key, see `loadJwtSettings`): each verified token acts
   * for the owner its claim names, until its expiry (checked on the application's clock).
   */
  readonly jwt?: JwtSettings | null;
  /** JWKS fetch limits and fetch function for `jwt` with a `jwksUrl` (tests; defaults `JWKS_LIMITS`). */
  readonly jwks?: AuthenticatorDeps['jwks'];
  /** Default: the system clock. */
  readonly clock?: Clock;
  /** Default: random ids. */
  readonly ids?: IdGenerator;
  /** Default: silent. */
  readonly logger?: Logger;
  /** Where runtimes look up API keys (default: the process environment). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The runtimes (default: `scripted`, `openai` and `a2a` over the database). */
  readonly runtimes?: (parts: RuntimeParts) => readonly AppRuntime[];
  /**
   * Replaces or wraps the store (tests: the in-memory fake, fault injection). Gets the sink the
   * store must publish committed events to, and the SQL store the application built (if any).
   */
  readonly store?: (events: EventSink, sql: KyselyTeamStore | null) => TeamStore;
  /** Scheduler tunables; false: no scheduler (requests stay QUEUED). */
  readonly scheduler?: Omit<SchedulerOptions, 'lease'> | false;
  readonly lease?: LeaseSettings;
  /** Following the other servers (PostgreSQL only; default on there); false: off. */
  readonly cluster?: ClusterSettings | false;
  readonly http?: HttpSettings;
  /**
   * The origin clients and remote agents reach this server at (`--public-url`): written into A2A
   * agent cards and into the MCP URL remote agents call back (default: the listening address).
   */
  readonly publicUrl?: string;
  /** Told about the events of every local commit, before anyone else (benchmarks). */
  readonly events?: EventSink;
  /** `budgets` of the configuration file: each owner's limits per UTC day (default: none). */
  readonly budgets?: BudgetPolicy;
  /**
   * How long a run's final write waits for the job write that records the run before it is
   * committed alone (milliseconds; default `RIDE_WAIT_MS`, 1 s; decision 0221). Tests lengthen it
   * to make the ride certain; a shorter wait costs a commit per turn the scheduler is slow to step.
   */
  readonly rideWaitMs?: number;
}

/** The application: its parts, for tests and tools, and how to run and stop it. */
export interface App {
  readonly core: Core;
  readonly store: TeamStore;
  readonly scheduler: Scheduler | null;
  /** The runtimes by name, and all of them. */
  readonly runtimes: RuntimeRegistry & { all(): readonly AppRuntime[] };
  /** Wakes subscriptions on every commit, local or (through the cluster) remote. */
  readonly events: EventHub;
  readonly progress: ProgressHub;
  readonly cluster: ClusterChanges | null;
  readonly database: OpenedDatabase | null;
  readonly memberRunTokens: MemberRunTokens | null;
  readonly serverId: string;
  /** The HTTP and WebSocket server, built on first use (not listening until {@link listen}). */
  readonly server: AgentTeamsServer;
  /** Starts following the other servers, then the scheduler; resumes interrupted creations. */
  start(): Promise<void>;
  /** Starts, then listens (port 0 picks a free one); resolves with the base URL. */
  listen(port: number, host: string): Promise<{ url: string }>;
  /** Stops admitting, lets in-flight steps finish (bounded), closes sockets and the database. */
  close(): Promise<void>;
}
