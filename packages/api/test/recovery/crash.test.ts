import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCrashTest } from '../../chaos/crash-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A short run in `pnpm test` (each kill restarts a server process, seconds each); `pnpm chaos`
 * runs the long one (200 kills by default) and writes its figures to `docs/reliability.md`.
 */
const KILLS = Number(process.env.AGENT_TEAMS_CRASH_KILLS ?? 3);

describe('the server under SIGKILL (crash test)', () => {
  it(`keeps every accepted request and the invariants across ${KILLS} kills`, async () => {
    const seed = Number(process.env.AGENT_TEAMS_CRASH_SEED ?? Date.now() % 1_000_000);
    const figures = await runCrashTest({ database: join(dir, 'crash.sqlite'), kills: KILLS, seed, maxLifeMs: 1_500 });
    expect({ seed, violations: figures.violations }).toEqual({ seed, violations: [] });
    expect(figures.acceptedRequests).toBeGreaterThan(0);
    expect(figures.maxActiveSeen).toBeLessThanOrEqual(8);
    expect(figures.finalPhases.COMPLETED ?? 0).toBeGreaterThan(0);
  }, 900_000);
});
