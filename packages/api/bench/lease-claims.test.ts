import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readMachineInfo } from './harness/machine-info.js';
import { leaseClaims } from './lease-claims.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-lease-claims-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('lease-claims benchmark', () => {
  it('never lets two concurrent claimers take the same orphaned job, with either method', async () => {
    // Needs the PostgreSQL server (AGENT_TEAMS_BENCH_POSTGRES); fails, never skips, without it.
    const report = await leaseClaims.run({ scale: 'tiny', dir, machine: await readMachineInfo(), log: () => {} });
    expect(report.metrics.claimedTwice).toBe(0);
    expect(report.metrics.leftUnclaimed).toBe(0);
    expect(report.metrics.fenceMismatches).toBe(0);
    // 2 orphan counts × 2 claimer counts, each row once per method.
    expect(report.metrics.configs).toBe(4);
    expect(report.tables[0]?.rows).toHaveLength(8);
    for (const row of report.tables[0]?.rows ?? []) expect(row.at(-1)).toMatch(/^\d+ \/ 0 \/ 0$/);
  });
});
