import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, type as osType, release, totalmem } from 'node:os';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { BUNDLED } from './bench-paths.js';

/** Where and on what the benchmarks ran. */
export interface MachineInfo {
  readonly cpuModel: string;
  readonly cpuCount: number;
  readonly ramGiB: number;
  readonly os: string;
  readonly node: string;
  /** `NODE_ENV` of the benchmark process (`pnpm bench` sets `production`, as deployed). */
  readonly nodeEnv: string;
  /**
   * How the code ran: `bundled` as the installed CLI is (`pnpm bench`, decision 0262), or the
   * TypeScript sources through tsx (the tests' tiny runs).
   */
  readonly code: 'bundled' | 'tsx';
  readonly sqlite: string;
  /** `server_version` of the PostgreSQL server, or why it is not known. */
  readonly postgres: string;
  readonly commit: string;
  readonly date: string;
}

/** The default PostgreSQL server asked for its version (override with AGENT_TEAMS_BENCH_POSTGRES). */
const DEFAULT_POSTGRES = 'postgres://postgres@127.0.0.1:5432/postgres';

/** Reads the machine, runtime and database versions; never throws. */
export async function readMachineInfo(env: NodeJS.ProcessEnv = process.env): Promise<MachineInfo> {
  const cpu = cpus();
  return {
    cpuModel: cpu[0]?.model.trim() ?? 'unknown',
    cpuCount: cpu.length,
    ramGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${osType()} ${release()} ${osName()}`.trim(),
    node: process.version,
    nodeEnv: env.NODE_ENV ?? 'unset',
    code: BUNDLED ? 'bundled' : 'tsx',
    sqlite: sqliteVersion(),
    postgres: await postgresVersion(env.AGENT_TEAMS_BENCH_POSTGRES ?? DEFAULT_POSTGRES),
    commit: gitCommit(),
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  };
}

function osName(): string {
  try {
    const text = readFileSync('/etc/os-release', 'utf8');
    const match = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(text);
    return match?.[1] ? `(${match[1]})` : '';
  } catch {
    return '';
  }
}

function sqliteVersion(): string {
  const db = new BetterSqlite3(':memory:');
  try {
    return (db.prepare('select sqlite_version() as v').get() as { v: string }).v;
  } finally {
    db.close();
  }
}

async function postgresVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_500 });
  try {
    await client.connect();
    const result = await client.query<{ server_version: string }>('show server_version');
    return result.rows[0]?.server_version ?? 'unknown';
  } catch {
    return 'not reachable (not measured)';
  } finally {
    await client.end().catch(() => undefined);
  }
}

function gitCommit(): string {
  try {
    const run = (args: string[]) =>
      execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const head = run(['rev-parse', '--short', 'HEAD']);
    return run(['status', '--porcelain']).length > 0 ? `${head} (with uncommitted changes)` : head;
  } catch {
    return 'unknown';
  }
}

/** One line naming the machine, for the header and each section. */
export function machineLine(m: MachineInfo): string {
  return `${m.cpuCount} × ${m.cpuModel}, ${m.ramGiB} GiB RAM, ${m.os}, Node ${m.node} (NODE_ENV ${m.nodeEnv}, ${m.code === 'bundled' ? 'bundled' : 'sources through tsx'}), SQLite ${m.sqlite}`;
}
