import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeTeamStoreContract } from '@agent-teams/testkit';
import { afterAll } from 'vitest';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-sqlite-store-'));
let next = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeTeamStoreContract('Kysely on a SQLite file', async ({ events, ids }) => {
  next += 1;
  const store = await KyselyTeamStore.open(join(dir, `store-${next}`, 'teams.sqlite'), { events, ids });
  return { store, close: () => store.close() };
});
