import type { TeamStore } from '@agent-teams/core';
import { MemoryLogger, SequentialIds, StaticCatalog } from '@agent-teams/testkit';
import { describe, expect, it } from 'vitest';
import { createScheduler } from './create-scheduler.js';

/** A store that only counts passes (admit calls) and how many overlap. */
function countingStore(delayMs: number) {
  const stats = { passes: 0, concurrent: 0, maxConcurrent: 0 };
  const store = {
    async admit() {
      stats.passes += 1;
      stats.concurrent += 1;
      stats.maxConcurrent = Math.max(stats.maxConcurrent, stats.concurrent);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      stats.concurrent -= 1;
      return [];
    },
    renewServerLease: async () => {},
    claimActiveJobs: async () => [],
    releaseServerLeases: async () => {},
    findTeams: async () => [],
  } as unknown as TeamStore;
  return { store, stats };
}

function build(store: TeamStore, safetyNetMs?: number) {
  return createScheduler({
    store,
    runtimes: { get: () => null },
    catalog: new StaticCatalog(),
    clock: { nowMs: () => Date.now() },
    ids: new SequentialIds(),
    logger: new MemoryLogger(),
    tools: () => ({ invoke: async () => null }),
    options: safetyNetMs === undefined ? undefined : { safetyNetMs },
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createScheduler', () => {
  it('runs a pass on start, coalesces many wake-ups and never overlaps passes', async () => {
    const { store, stats } = countingStore(20);
    const scheduler = build(store);
    await scheduler.start();
    expect(stats.passes).toBe(1);
    for (let i = 0; i < 50; i += 1) scheduler.wake();
    await sleep(5);
    for (let i = 0; i < 50; i += 1) scheduler.eventSink.published([{}] as never);
    await sleep(80);
    expect(stats.maxConcurrent).toBe(1);
    expect(stats.passes).toBeGreaterThanOrEqual(2);
    expect(stats.passes).toBeLessThanOrEqual(4);
    await scheduler.stop();
  });

  it('does not poll when nothing wakes it before the safety net', async () => {
    const { store, stats } = countingStore(0);
    const scheduler = build(store);
    await scheduler.start();
    await sleep(300);
    expect(stats.passes).toBe(1);
    await scheduler.stop();
  });

  it('passes again on the safety-net timer, and not after stop', async () => {
    const { store, stats } = countingStore(0);
    const scheduler = build(store, 30);
    await scheduler.start();
    await sleep(120);
    expect(stats.passes).toBeGreaterThanOrEqual(3);
    await scheduler.stop();
    const after = stats.passes;
    scheduler.wake();
    await sleep(80);
    expect(stats.passes).toBe(after);
  });
});
