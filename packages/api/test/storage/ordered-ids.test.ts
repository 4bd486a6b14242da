import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createRandomIds, orderedIdBody } from '../../src/adapters/random-ids.js';
import { POSTGRES_ADMIN_URL } from '../support/fresh-postgres.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-ordered-ids-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Rows already in the index: enough leaf pages that eight random keys rarely share one. */
const EXISTING_ROWS = 20_000;
/** Rows one transaction inserts, as a batch of eight `sendRequest` writes does (decision 0224). */
const BATCH = 8;

/**
 * The log frames (pages) one transaction of {@link BATCH} inserts writes into a table keyed by a
 * unique text id that already holds {@link EXISTING_ROWS} ids from `earlier` (minted over the
 * last day), with ids from `mint`: WAL, no checkpoint, so the log only grows.
 */
function framesOfOneBatch(name: string, earlier: (at: number) => string, mint: () => string): number {
  const file = join(dir, `${name}.sqlite`);
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('create table jobs (seq integer primary key, id text not null unique, body text)');
    const insert = db.prepare('insert into jobs (id, body) values (?, ?)');
    const since = Date.now() - 86_400_000;
    db.transaction(() => {
      for (let i = 0; i < EXISTING_ROWS; i++) insert.run(earlier(since + i * 4), 'earlier');
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.transaction(() => {
      for (let i = 0; i < BATCH; i++) insert.run(mint(), 'now');
    })();
    const walBytes = statSync(`${file}-wal`).size;
    // A log: a 32-byte header, then one frame (a 24-byte header and the page) per page written.
    return (walBytes - 32) / (pageSize + 24);
  } finally {
    db.close();
  }
}

describe('ids minted together sort together (the time first)', () => {
  it('SQLite: a batch of ids minted now writes the last pages of the id index, random ids one page each', () => {
    const ids = createRandomIds();
    const ordered = framesOfOneBatch(
      'ordered',
      (at) => `job_${orderedIdBody(at)}`,
      () => ids.jobId(),
    );
    // The old ids' shape: 16 random bytes, no time.
    const old = () => `job_${randomBytes(16).toString('base64url')}`;
    const random = framesOfOneBatch('random', old, old);
    // The table's last page and the index's last one (and a split's new page and parent).
    expect(ordered).toBeLessThanOrEqual(4);
    // The table's last page, and about one index leaf per key.
    expect(random).toBeGreaterThanOrEqual(BATCH - 1);
    expect(random).toBeGreaterThan(ordered);
  });

  it('PostgreSQL: ids minted one after another keep that order under byte order, the database default and ICU collations', async () => {
    const minted: string[] = [];
    const start = Date.now();
    // Across many orders of magnitude of time, so every digit of the time takes several values.
    for (let step = 0; step < 400; step++) minted.push(`job_${orderedIdBody(start + step ** 4 * 997)}`);
    const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await client.connect();
    try {
      const collations = (
        await client.query<{ name: string }>(
          `select collname as name from pg_collation where collname in ('C', 'POSIX', 'und-x-icu', 'en-x-icu', 'en_US.utf8', 'C.utf8')`,
        )
      ).rows.map((row) => row.name);
      expect(collations).toContain('C');
      const shuffled = [...minted].sort(() => Math.random() - 0.5);
      for (const collation of [...collations, null]) {
        const order = collation === null ? '' : ` collate "${collation}"`;
        const sorted = await client.query<{ id: string }>(
          `select id from unnest($1::text[]) as t(id) order by id${order}`,
          [shuffled],
        );
        expect({ collation, ids: sorted.rows.map((row) => row.id) }).toEqual({ collation, ids: minted });
      }
    } finally {
      await client.end();
    }
  });
});
