import net from 'node:net';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/observability/metrics.js';
import type { Database } from '../../src/storage/database-types.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { openDatabase } from '../../src/storage/open-database.js';

/**
 * `/metrics` while the database is away. Found by killing a server's way to PostgreSQL under it:
 * a scrape hung for as long as the database stayed silent (a network partition) and answered 500
 * with a stack trace when it refused connections, so an outage hid the server's own figures too.
 */

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Run in the order pushed: the silent server's sockets go first, so the pool can end. */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A TCP server that accepts connections and never answers: PostgreSQL behind a partition. */
async function silentServer() {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return { port, accepted: () => accepted };
}

describe('/metrics while the database is away', () => {
  it('answers within the bound from a silent database with its own figures, and queues no more reads', async () => {
    const silent = await silentServer();
    const pool = new pg.Pool({ host: '127.0.0.1', port: silent.port, user: 'postgres', database: 'none', max: 10 });
    pool.on('error', () => undefined);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    cleanups.push(() => db.destroy().catch(() => undefined));
    const metrics = createMetrics(db, () => Date.now(), { databaseTimeoutMs: 200 });
    metrics.admissions.inc({ runtime: 'scripted' });

    const started = Date.now();
    const first = (await metrics.render()).text;
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(sample(first, 'agent_teams_admissions_total{runtime="scripted"}')).toBe(1);
    expect(sample(first, 'agent_teams_live_sockets')).toBe(0);
    expect(first).not.toMatch(/^agent_teams_jobs\{/m);
    expect(first).not.toMatch(/^agent_teams_owner_spend_today\{/m);

    // The reads of the first scrape are still waiting; the next scrape waits on them again.
    const opened = silent.accepted();
    expect(opened).toBeGreaterThan(0);
    const second = (await metrics.render()).text;
    expect(sample(second, 'agent_teams_admissions_total{runtime="scripted"}')).toBe(1);
    expect(silent.accepted()).toBe(opened);
  }, 5_000);

  it('answers once the database fails, with the usage counters at their last figures', async () => {
    const opened = await openDatabase(':memory:');
    cleanups.push(() => opened.close().catch(() => undefined));
    await migrateToLatest(opened.db, opened.dialect);
    await opened.db
      .insertInto('model_usage')
      .values({
        id: 'call-1',
        team_id: 'team-1',
        job_id: 'job-1',
        conversation_id: 'conv-1',
        model: 'fake',
        input_tokens: 120,
        output_tokens: 30,
        cost: 0.25,
        created_at: new Date().toISOString(),
      })
      .execute();
    const metrics = createMetrics(opened.db, () => Date.now(), { databaseTimeoutMs: 200 });
    const before = (await metrics.render()).text;
    expect(sample(before, 'agent_teams_model_tokens_total{direction="input"}')).toBe(120);
    expect(sample(before, 'agent_teams_owner_spend_today{owner="alice",unit="tokens"}')).toBeUndefined();

    await opened.close();
    const after = (await metrics.render()).text;
    // Not 0: a counter that drops reads as a reset, and the next good read as a jump.
    expect(sample(after, 'agent_teams_model_tokens_total{direction="input"}')).toBe(120);
    expect(sample(after, 'agent_teams_model_tokens_total{direction="output"}')).toBe(30);
    expect(sample(after, 'agent_teams_model_cost_total')).toBe(0.25);
    expect(after).not.toMatch(/^agent_teams_jobs\{/m);
    expect(sample(after, 'agent_teams_live_sockets')).toBe(0);
  });
});
