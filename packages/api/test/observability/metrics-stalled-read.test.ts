import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMetrics } from '../../src/observability/metrics.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { type OpenedDatabase, openDatabase } from '../../src/storage/open-database.js';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';
import { stallingAnswers } from '../support/stalling-answers.js';

/**
 * `/metrics` after one of its reads never answers (a pooled connection whose path died silently),
 * while new reads work again. Every scrape waited on that one read, so the cluster figures stayed
 * out of `/metrics` for as long as it hung (minutes, until the kernel gave up on the socket) with
 * the database answering everyone else; the change feed gives such a read up after 10 s.
 */

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

// PostgreSQL: its pool gives new reads other connections while the held ones hang.
let fresh: FreshPostgres;
beforeAll(async () => {
  fresh = await createFreshPostgres('agent_teams_metrics_stalled');
});
afterAll(() => fresh?.drop());

let opened: OpenedDatabase | null = null;
let release: (() => void)[] = [];
afterEach(async () => {
  for (const resolve of release.splice(0)) resolve();
  await opened?.close();
  opened = null;
});

async function recordUsage(database: OpenedDatabase, id: string, inputTokens: number): Promise<void> {
  const row = { team_id: 'team-1', job_id: 'job-1', conversation_id: 'conv-1', model: 'fake', output_tokens: 1 };
  await database.db
    .insertInto('model_usage')
    .values({ id, ...row, input_tokens: inputTokens, cost: 0, created_at: new Date().toISOString() })
    .execute();
}

describe('/metrics after a read that never answers', () => {
  it('reads again once that read is given up, and shows the figures of a database that answers', async () => {
    const database = await openDatabase(fresh.url, { poolSize: 4 });
    opened = database;
    await migrateToLatest(database.db, database.dialect);
    await recordUsage(database, 'call-1', 120);
    const { stall, held, setStalling } = stallingAnswers();
    release = held;
    const metrics = createMetrics(database.db.withPlugin(stall), () => Date.now(), {
      databaseTimeoutMs: 100,
      readAbandonMs: 300,
    });
    const input = async () =>
      sample((await metrics.render()).text, 'agent_teams_model_tokens_total{direction="input"}');

    setStalling(true);
    await metrics.render();
    // One read for every figure, its statements one after another: one connection is held.
    expect(held).toHaveLength(1);
    // The path is back for new reads; the held ones never answer.
    setStalling(false);
    await recordUsage(database, 'call-2', 80);
    await vi.waitFor(async () => expect(await input()).toBe(200), { timeout: 5_000, interval: 50 });
  });

  it('keeps at most two given-up reads pending while the database stays silent', async () => {
    const database = await openDatabase(fresh.url, { poolSize: 6 });
    opened = database;
    await migrateToLatest(database.db, database.dialect);
    const { stall, held, setStalling } = stallingAnswers();
    release = held;
    const metrics = createMetrics(database.db.withPlugin(stall), () => Date.now(), {
      databaseTimeoutMs: 20,
      readAbandonMs: 50,
    });
    setStalling(true);
    // Scrapes well past the time a read is given up, each: one read in flight, two given up.
    for (let scrape = 0; scrape < 8; scrape += 1) {
      await metrics.render();
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    expect(held).toHaveLength(3);
  });
});
