import { ACTIVE_PHASES, type LeasedJob } from '@agent-teams/core';
import { UNFINISHED } from '../src/storage/job-reads.js';
import { KyselyTeamStore } from '../src/storage/kysely-team-store.js';
import { type OpenedDatabase, openDatabase } from '../src/storage/open-database.js';
import { createBenchPostgres } from './harness/bench-postgres.js';
import type { BenchContext, Benchmark, BenchReport } from './harness/benchmark.js';
import { ms, type Summary, summarize } from './harness/stats.js';
import { advisoryClaim } from './leases/advisory-claim.js';
import { orphanAll, seedOrphans } from './leases/seed-orphans.js';

const SIZES = {
  full: { orphans: [8, 1_000], claimers: [2, 4], rounds: { 8: 200, 1000: 30 } as Record<number, number>, steady: 100 },
  tiny: { orphans: [8, 40], claimers: [2, 4], rounds: { 8: 4, 40: 4 } as Record<number, number>, steady: 4 },
} as const;

const METHODS = ['skip-locked', 'advisory'] as const;
type Method = (typeof METHODS)[number];

const LABEL: Record<Method, string> = {
  'skip-locked': "`FOR UPDATE SKIP LOCKED` (the store's `claimActiveJobs`)",
  advisory: '`pg_try_advisory_xact_lock` per job (bench only)',
};

/** One simulated server: its own pool, store and live lease row. */
interface Claimer {
  readonly serverId: string;
  readonly database: OpenedDatabase;
  readonly store: KyselyTeamStore;
}

interface Series {
  readonly passes: number[];
  readonly rounds: number[];
  readonly largestShare: number[];
  claimed: number;
  twice: number;
  unclaimed: number;
  fenceMismatches: number;
  readonly steady: number[];
}

const emptySeries = (): Series => ({
  passes: [],
  rounds: [],
  largestShare: [],
  claimed: 0,
  twice: 0,
  unclaimed: 0,
  fenceMismatches: 0,
  steady: [],
});

function claim(method: Method, claimer: Claimer): Promise<readonly LeasedJob[]> {
  const args = { serverId: claimer.serverId, nowMs: Date.now() };
  return method === 'skip-locked'
    ? claimer.store.claimActiveJobs(args).then((claimed) => claimed.held)
    : advisoryClaim(claimer.database.db, args);
}

async function fenceSum(database: OpenedDatabase): Promise<number> {
  const row = await database.db
    .selectFrom('jobs')
    .select((eb) => eb.fn.sum<string>('lease_fence').as('fences'))
    .where('unfinished', '=', UNFINISHED)
    .where('phase', 'in', ACTIVE_PHASES)
    .executeTakeFirstOrThrow();
  return Number(row.fences);
}

/** Every claimer runs one pass at the same moment; returns each pass's time and what it holds. */
async function concurrentPasses(method: Method, claimers: readonly Claimer[]) {
  return Promise.all(
    claimers.map(async (claimer) => {
      const start = performance.now();
      const held = await claim(method, claimer);
      const end = performance.now();
      return { start, end, ids: held.map((entry) => entry.job.id as string) };
    }),
  );
}

/** `rounds` measured rounds per method (alternating, after one warm-up round each) on one seeded database. */
async function measureClaimers(
  admin: OpenedDatabase,
  url: string,
  orphans: number,
  count: number,
  rounds: number,
  steadyPasses: number,
  series: Record<Method, Series>,
): Promise<void> {
  const claimers: Claimer[] = [];
  for (let i = 0; i < count; i += 1) {
    const database = await openDatabase(url, { poolSize: 2 });
    const store = new KyselyTeamStore(database.db, database.dialect);
    const serverId = `srv_claim_${count}_${i + 1}`;
    await store.renewServerLease({
      serverId,
      host: 'bench',
      now: new Date().toISOString(),
      expiresAtMs: Date.now() + 3_600_000,
    });
    claimers.push({ serverId, database, store });
  }
  try {
    for (let round = 0; round < 2 * (rounds + 1); round += 1) {
      const method = METHODS[round % 2] as Method;
      await orphanAll(admin);
      const fencesBefore = await fenceSum(admin);
      const passes = await concurrentPasses(method, claimers);
      const fencesAfter = await fenceSum(admin);
      if (round < 2) continue;
      const s = series[method];
      const seen = new Map<string, number>();
      for (const pass of passes) for (const id of pass.ids) seen.set(id, (seen.get(id) ?? 0) + 1);
      s.passes.push(...passes.map((pass) => pass.end - pass.start));
      s.rounds.push(Math.max(...passes.map((p) => p.end)) - Math.min(...passes.map((p) => p.start)));
      s.largestShare.push(Math.max(...passes.map((pass) => pass.ids.length)) / orphans);
      s.claimed += seen.size;
      s.twice += [...seen.values()].filter((n) => n > 1).length;
      s.unclaimed += orphans - seen.size;
      // Each claim bumps the fence by one: more than `orphans` bumps means a job was claimed twice.
      if (fencesAfter - fencesBefore !== orphans) s.fenceMismatches += 1;
    }
    // Steady state: every job held by a live claimer, nothing to claim; the cost of every pass.
    for (let pass = 0; pass < 2 * steadyPasses; pass += 1) {
      const method = METHODS[pass % 2] as Method;
      const passes = await concurrentPasses(method, claimers);
      series[method].steady.push(...passes.map((p) => p.end - p.start));
    }
  } finally {
    for (const claimer of claimers) {
      await claimer.store.releaseServerLeases(claimer.serverId);
      await claimer.database.close();
    }
  }
}

interface Config {
  readonly orphans: number;
  readonly claimers: number;
  readonly rounds: number;
  readonly series: Record<Method, Series>;
}

async function measureOrphans(ctx: BenchContext, orphans: number): Promise<Config[]> {
  const size = SIZES[ctx.scale];
  const postgres = await createBenchPostgres(`leases_${orphans}`);
  const admin = await openDatabase(postgres.url, { poolSize: 2 });
  try {
    await seedOrphans(admin, orphans);
    ctx.log(`${orphans} orphaned active jobs seeded`);
    const configs: Config[] = [];
    for (const count of size.claimers) {
      const series = { 'skip-locked': emptySeries(), advisory: emptySeries() };
      const rounds = size.rounds[orphans] ?? 4;
      await measureClaimers(admin, postgres.url, orphans, count, rounds, size.steady, series);
      configs.push({ orphans, claimers: count, rounds, series });
    }
    return configs;
  } finally {
    await admin.close();
    await postgres.drop();
  }
}

const timing = (s: Summary) => [ms(s.p50), ms(s.p99), ms(s.max)];

/**
 * Claim passes over orphaned active jobs with two or four concurrent claimers: the store's
 * `FOR UPDATE SKIP LOCKED` claim against an advisory-lock variant, with a check that no job is
 * ever claimed twice.
 */
export const leaseClaims: Benchmark = {
  name: 'lease-claims',
  title: 'Lease claims: `FOR UPDATE SKIP LOCKED` vs. advisory locks',
  async run(ctx): Promise<BenchReport> {
    const size = SIZES[ctx.scale];
    const configs: Config[] = [];
    for (const orphans of size.orphans) configs.push(...(await measureOrphans(ctx, orphans)));
    const rows: string[][] = [];
    const steadyRows: string[][] = [];
    let twice = 0;
    let unclaimed = 0;
    let mismatches = 0;
    for (const config of configs) {
      for (const method of METHODS) {
        const s = config.series[method];
        twice += s.twice;
        unclaimed += s.unclaimed;
        mismatches += s.fenceMismatches;
        const share = s.largestShare.reduce((a, b) => a + b, 0) / Math.max(1, s.largestShare.length);
        rows.push([
          LABEL[method],
          String(config.orphans),
          String(config.claimers),
          String(config.rounds),
          ...timing(summarize(s.passes)),
          ms(summarize(s.rounds).p50),
          `${Math.round(share * 100)}%`,
          `${s.claimed} / ${s.twice} / ${s.unclaimed}`,
        ]);
        steadyRows.push([
          LABEL[method],
          String(config.orphans),
          String(config.claimers),
          String(s.steady.length),
          ...timing(summarize(s.steady)),
        ]);
      }
    }
    return {
      tables: [
        {
          title: 'A claim pass over orphaned active jobs (all claimers start together)',
          header: [
            'Method',
            'Orphans',
            'Claimers',
            'Rounds',
            'pass p50',
            'pass p99',
            'pass max',
            'round p50',
            'largest share',
            'claimed / twice / left',
          ],
          rows,
        },
        {
          title:
            'A claim pass with nothing to claim (every job held by a live claimer: the cost of each scheduler pass)',
          header: ['Method', 'Active jobs', 'Claimers', 'Passes', 'p50', 'p99', 'max'],
          rows: steadyRows,
        },
      ],
      method: [
        `A fresh PostgreSQL database per orphan count, seeded with real jobs (teams and requests through the core, then one admission pass whose plan admits every candidate, beyond the 8-slot cap, with the scheduler's freeze), all leased to a server with no \`server_leases\` row: what a crashed server leaves behind. ${size.orphans.join(' and ')} orphans.`,
        `Each claimer is one simulated server: its own pool (2 connections), its own store and a live lease row. In every round all jobs are handed back to the dead server (one UPDATE, untimed), then all ${size.claimers.join(' or ')} claimers start a claim pass at the same moment (\`Promise.all\`; the database work runs in parallel on separate connections). One warm-up round per method is not counted; the methods alternate round by round.`,
        "A pass is one call: the candidates locked with `SELECT … FOR UPDATE SKIP LOCKED`, the fence bumped on those, and the read of every active job this server holds (the store's `claimActiveJobs` inside `runWrite`); or, for the variant, the same transaction with the candidates read unlocked, `pg_try_advisory_xact_lock(hashtext(id))` for all of them in one statement, and the UPDATE re-checking the orphan condition (see `bench/leases/advisory-claim.ts`). \"Round\" is from the first pass's start to the last pass's end.",
        '"claimed / twice / left": over all measured rounds, jobs claimed, jobs that came back from more than one claimer in the same round, and orphans no claimer took. The sum of `lease_fence` over the active jobs is also compared before and after each round: it must grow by exactly the orphan count (one bump per claim).',
        '"largest share": the mean share of the orphans the busiest claimer took in a round (100%: one claimer took all, the others found them locked or already claimed).',
        'Steady passes: after the rounds every job is held by a live claimer; each claimer then runs passes that find nothing to claim (all claimers at once, the methods alternating).',
      ],
      notes: [
        `Safety check over every round of both methods: ${twice} job(s) claimed twice, ${unclaimed} orphan(s) left unclaimed, ${mismatches} round(s) where the fences grew by other than the orphan count${twice + unclaimed + mismatches === 0 ? '.' : ': **FAILED** (see the "claimed / twice / left" column for the method). A job claimed twice in one round means two servers both took it: the later claim\'s fence wins, so the earlier holder\'s writes are refused (`STALE_LEASE`), but until its next pass it may drive the job too.'}`,
        'Why `FOR UPDATE SKIP LOCKED` with lease rows, not advisory locks: the lease is data (`jobs.lease_server`, `jobs.lease_fence`, `server_leases.expires_at_ms`), so it survives connection loss, pool recycling and server restarts, and expires by time, visible to operators in one table. Session advisory locks belong to one connection: with a pool the lock lives on whichever connection took it and is lost (or kept) with that connection, and a paused process keeps its session — and the lock — alive for as long as TCP does, so its jobs are never taken over; transaction advisory locks (the variant here) end at COMMIT, so they cannot hold a job for the minutes a turn runs and still need a lease row. Neither kind carries a fencing token: a paused server that wakes up could still finish or fail a job another server took, while every write of the old holder here is checked against `lease_fence` and refused (`STALE_LEASE`). Row locks with SKIP LOCKED also need no hashing (no two jobs can share a lock) and do the claim in the same statements as the data.',
      ],
      metrics: {
        claimedTwice: twice,
        leftUnclaimed: unclaimed,
        fenceMismatches: mismatches,
        configs: configs.length,
      },
    };
  },
};
