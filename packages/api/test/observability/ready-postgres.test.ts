import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFreshPostgres, type FreshPostgres } from '../support/fresh-postgres.js';
import { openTestApp } from '../support/test-app.js';

/** `/ready` through the application's Yoga: status and body. */
async function ready(app: Awaited<ReturnType<typeof openTestApp>>) {
  const response = await app.server.yoga.fetch('http://localhost/ready');
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

describe('/ready on PostgreSQL', () => {
  let pg: FreshPostgres;
  beforeAll(async () => {
    pg = await createFreshPostgres('ready');
  });
  afterAll(() => pg.drop());

  it('answers 200 while the database answers, then 503 naming it once the database is gone', async () => {
    const app = await openTestApp({ database: pg.url, cluster: false });
    try {
      expect(await ready(app)).toEqual({
        status: 200,
        body: { status: 'ready', database: 'ok', migrations: 'ok', scheduler: 'running' },
      });
      // The database goes away under the running server: its connections are ended and it is dropped.
      await pg.drop();
      const gone = await ready(app);
      expect(gone.status).toBe(503);
      expect(gone.body).toMatchObject({ status: 'unavailable', database: 'unreachable', migrations: 'unknown' });
      // Liveness is another question: the process still serves.
      expect((await app.server.yoga.fetch('http://localhost/health')).status).toBe(200);
    } finally {
      await app.close().catch(() => undefined);
    }
  });

  it('answers 503 with migrations pending when a migration this build knows is not applied', async () => {
    const other = await createFreshPostgres('ready_pending');
    const app = await openTestApp({ database: other.url, cluster: false });
    try {
      expect((await ready(app)).status).toBe(200);
      // As if the row of the newest migration were missing: this build needs it applied.
      const db = app.database?.db as unknown as Kysely<{ kysely_migration: { name: string } }>;
      const [newest] = await db
        .selectFrom('kysely_migration')
        .select('name')
        .orderBy('name', 'desc')
        .limit(1)
        .execute();
      await db
        .deleteFrom('kysely_migration')
        .where('name', '=', newest?.name ?? '')
        .execute();
      expect(await ready(app)).toEqual({
        status: 503,
        body: { status: 'unavailable', database: 'ok', migrations: 'pending', scheduler: 'running' },
      });
    } finally {
      await app.close();
      await other.drop();
    }
  });
});
