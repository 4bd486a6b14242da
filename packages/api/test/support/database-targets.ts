import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createFreshPostgres, type FreshPostgres } from './fresh-postgres.js';

/** A database a test opens (and reopens, as a restarted server): its name, and how to make one. */
export type DatabaseTarget = readonly [name: string, make: () => Promise<string>];

/**
 * The two databases a suite runs on, for `describe.each`: a new SQLite file (in a temp dir of the
 * file) or a fresh PostgreSQL database (named from `prefix`), each made per call, as a path or URL
 * that `openDatabase` and `openHarness` take. Both are removed after the file's tests.
 */
export function databaseTargets(prefix: string): readonly DatabaseTarget[] {
  const dir = mkdtempSync(join(tmpdir(), `${prefix.replaceAll('_', '-')}-`));
  const dropped: FreshPostgres[] = [];
  let files = 0;
  afterAll(async () => {
    for (const pg of dropped.splice(0)) await pg.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  const postgres = async () => {
    const pg = await createFreshPostgres(prefix);
    dropped.push(pg);
    return pg.url;
  };
  return [
    ['SQLite', async () => join(dir, `teams-${++files}.sqlite`)],
    ['PostgreSQL', postgres],
  ];
}
