import { asJobId, asTeamId } from '@agent-teams/core';
import { FakeClock } from '@agent-teams/testkit';
import { describe, expect, it } from 'vitest';
import { createMemberRunTokens, hashToken, MEMBER_RUN_TOKEN_PREFIX } from '../../src/adapters/member-run-tokens.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { insertTeamRow } from '../support/raw-rows.js';

describe('member-run tokens', () => {
  it('issues distinct tokens per call, stores only their hash, and maps each back to its job', async () => {
    const database = await openDatabase(':memory:');
    try {
      await migrateToLatest(database.db, database.dialect);
      await insertTeamRow(database.db, 'team_1', 'now');
      const tokens = createMemberRunTokens(database.db, new FakeClock());
      const job = { id: asJobId('job_1'), teamId: asTeamId('team_1') };
      const first = await tokens.issue(job);
      const second = await tokens.issue(job);
      expect(first).not.toBe(second);
      expect(first.startsWith(MEMBER_RUN_TOKEN_PREFIX)).toBe(true);
      expect(await tokens.jobOf(first)).toBe('job_1');
      expect(await tokens.jobOf(second)).toBe('job_1');
      expect(await tokens.jobOf(`${first}x`)).toBeNull();
      expect(await tokens.jobOf('tok-alice')).toBeNull();
      const rows = await database.db.selectFrom('member_run_tokens').selectAll().execute();
      expect(rows.map((row) => row.token_hash).sort()).toEqual([hashToken(first), hashToken(second)].sort());
      expect(JSON.stringify(rows)).not.toContain(first.slice(MEMBER_RUN_TOKEN_PREFIX.length));
      // Tokens go with their team.
      await database.db.deleteFrom('teams').where('id', '=', 'team_1').execute();
      expect(await tokens.jobOf(first)).toBeNull();
    } finally {
      await database.close();
    }
  });
});
