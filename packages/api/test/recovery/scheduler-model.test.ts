import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { action } from './scheduler-model-actions.js';
import { STATS, World } from './scheduler-model-world.js';

/**
 * Model-based test of the scheduler and the job state machine: random sequences of requests,
 * runtime outcomes, answers, cancels, crashes (the scheduler is dropped and rebuilt from the
 * store), a second scheduler racing the first (duplicate starts, acks, polls), failing database
 * writes, runtime failures and clock jumps; after every step the scheduling invariants hold,
 * and at the end every request finishes once everything is answered.
 *
 * Runs: `AGENT_TEAMS_MODEL_RUNS` (default 25 in `pnpm test`; `pnpm chaos` runs 10,000).
 */
const RUNS = Number(process.env.AGENT_TEAMS_MODEL_RUNS ?? 25);
const SEED = process.env.AGENT_TEAMS_MODEL_SEED ? Number(process.env.AGENT_TEAMS_MODEL_SEED) : undefined;

describe('scheduler and state machine (model-based)', () => {
  it(
    `keeps the invariants under crashes, races, failures and clock jumps (${RUNS} sequences)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(action, { minLength: 15, maxLength: 60, size: 'max' }), async (actions) => {
          const world = new World();
          STATS.sequences += 1;
          STATS.actions += actions.length;
          try {
            await world.setUp();
            for (const a of actions) {
              await world.run(a);
              await world.settleDown();
              await world.check();
            }
            await world.finish();
          } finally {
            await world.close();
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      const file = process.env.AGENT_TEAMS_MODEL_STATS_FILE;
      if (file) writeFileSync(file, `${JSON.stringify({ runs: RUNS, ...STATS }, null, 2)}\n`);
      expect(STATS.finished.COMPLETED ?? 0).toBeGreaterThan(0);
    },
    Math.max(600_000, RUNS * 300),
  );
});
