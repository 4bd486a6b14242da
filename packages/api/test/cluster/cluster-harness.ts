import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';
import { ClusterObserver } from './cluster-observer.js';
import { ServerProcess } from './server-process.js';

/** Bearer tokens of the two owners every cluster test works as. */
export const TOKENS = { alice: 'tok-alice', bob: 'tok-bob' } as const;

/** Lease flags of `serve` (see the deployment guide): a short TTL makes failover quick enough to test. */
export interface LeaseFlags {
  readonly leaseTtlMs: number;
  readonly heartbeatMs: number;
}

/** The configuration file: two owners and three scripted agents (contract "The `scripted` runtime"). */
function clusterConfig(): unknown {
  return {
    auth: { tokens: { [TOKENS.alice]: 'alice', [TOKENS.bob]: 'bob' } },
    agents: [
      { name: 'researcher', title: 'Research', description: 'Find and check source evidence', runtime: 'scripted' },
      { name: 'reviewer', title: 'Review', description: 'Independent quality review', runtime: 'scripted' },
      { name: 'writer', title: 'Writer', description: 'Write clear reports', runtime: 'scripted' },
    ],
    // The cluster tests race a thousand sends of one owner at once; the limiter has its own tests.
    rateLimit: { perSecond: 100_000, burst: 1_000_000 },
    // One owner fills all 8 slots here (failover of 8 runs); fairness has its own tests.
    admission: { reservedForOthers: 0 },
  };
}

/**
 * One test file's cluster: a fresh migrated PostgreSQL database, a configuration file, the real
 * server processes started on them, and a direct `pg` observer for invariants.
 *
 * @remarks Build it in `beforeAll` and {@link dispose} it in `afterAll`; call {@link printOnFailure}
 * from `beforeEach` so a failing test shows what every server logged.
 */
export class ClusterHarness {
  readonly #servers: ServerProcess[] = [];
  /** The `server_leases` id of each server started alone (see {@link start}). */
  readonly #leaseIds = new Map<ServerProcess, string>();
  #count = 0;

  private constructor(
    readonly database: FreshPostgres,
    readonly observer: ClusterObserver,
    readonly dir: string,
    readonly configPath: string,
  ) {}

  /** Creates the database (`<prefix>_<random>`) and the configuration; starts no server yet. */
  static async create(prefix: string): Promise<ClusterHarness> {
    const database = await createFreshPostgres(prefix);
    const dir = mkdtempSync(join(tmpdir(), 'agent-teams-cluster-'));
    const configPath = join(dir, 'agent-teams.config.json');
    writeFileSync(configPath, JSON.stringify(clusterConfig()));
    return new ClusterHarness(database, new ClusterObserver(database.url), dir, configPath);
  }

  /**
   * Starts one more server on the shared database, optionally with lease flags or other `serve`
   * flags.
   *
   * @remarks A server registers its lease before it listens, so when it started while no other
   * start was under way, the one `server_leases` row that appeared meanwhile is its own: that is
   * how {@link holderOf} tells which process drives a job.
   */
  async start(opts: { lease?: LeaseFlags; args?: readonly string[] } = {}): Promise<ServerProcess> {
    const known = new Set(await this.observer.serverIds());
    this.#count += 1;
    const leaseArgs = opts.lease
      ? ['--lease-ttl', String(opts.lease.leaseTtlMs), '--heartbeat', String(opts.lease.heartbeatMs)]
      : [];
    const server = await ServerProcess.start({
      name: `s${this.#count}`,
      database: this.database.url,
      config: this.configPath,
      args: [...leaseArgs, ...(opts.args ?? [])],
    });
    this.#servers.push(server);
    const fresh = (await this.observer.serverIds()).filter((id) => !known.has(id));
    if (fresh.length === 1) this.#leaseIds.set(server, fresh[0] as string);
    return server;
  }

  /** The `server_leases` id of a server started alone, or null (see {@link start}). */
  leaseIdOf(server: ServerProcess): string | null {
    return this.#leaseIds.get(server) ?? null;
  }

  /**
   * The running server holding the most unfinished jobs of these teams, and how many it holds;
   * throws when no job is held by a server this harness identified.
   */
  async holderOf(teamIds: readonly string[]): Promise<{ server: ServerProcess; held: number; unfinished: number }> {
    const holders = [...(await this.observer.leaseHolders(teamIds)).values()];
    let best: { server: ServerProcess; held: number } | null = null;
    for (const [server, id] of this.#leaseIds) {
      const held = holders.filter((holder) => holder === id).length;
      if (server.running && held > 0 && (best === null || held > best.held)) best = { server, held };
    }
    if (best === null) {
      const known = JSON.stringify(Object.fromEntries([...this.#leaseIds].map(([s, id]) => [s.name, id])));
      throw new Error(`no running server holds these jobs; holders ${JSON.stringify(holders)}, servers ${known}`);
    }
    return { ...best, unfinished: holders.length };
  }

  /** Starts `count` servers side by side. */
  async startMany(count: number, opts: { lease?: LeaseFlags } = {}): Promise<ServerProcess[]> {
    return Promise.all(Array.from({ length: count }, () => this.start(opts)));
  }

  /** Every server's output, headed by its name, pid and whether it still runs. */
  logs(): string {
    return this.#servers
      .map((s) => `----- ${s.name} (pid ${s.pid}, ${s.running ? 'running' : 'exited'}) ${s.url}\n${s.output()}`)
      .join('\n');
  }

  /** Registers a printout of {@link logs} for when the current test fails (call from `beforeEach`). */
  printOnFailure(onTestFailed: (handler: () => Promise<void>) => void): void {
    onTestFailed(async () => {
      const database = await this.observer.describe().catch((error: unknown) => `(unreadable: ${String(error)})`);
      process.stderr.write(`\n===== cluster server logs =====\n${this.logs()}\n===== database =====\n${database}\n`);
    });
  }

  /** Kills every server still running (SIGKILL also ends a SIGSTOPped one). */
  async killAll(): Promise<void> {
    await Promise.all(this.#servers.map((server) => server.kill()));
  }

  /** Kills the servers, closes the observer, drops the database and removes the temporary files. */
  async dispose(): Promise<void> {
    await this.killAll();
    await this.observer.close();
    await this.database.drop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
