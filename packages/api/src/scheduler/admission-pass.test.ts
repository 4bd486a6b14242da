import { MemoryLogger, SequentialIds, StaticCatalog } from '@agent-teams/testkit';
import { describe, expect, it } from 'vitest';
import { AdmissionPass, type AdmissionPassDeps } from './admission-pass.js';
import { WakeTimer } from './wake-timer.js';

function pass(deadline: string | null) {
  const clock = { nowMs: () => Date.now() };
  return new AdmissionPass({
    store: { nextWaitDeadline: async () => deadline } as unknown as AdmissionPassDeps['store'],
    catalog: new StaticCatalog(),
    runtimes: { get: () => null },
    clock,
    ids: new SequentialIds(),
    logger: new MemoryLogger(),
    serverId: 'server-1',
    timer: new WakeTimer(() => {}, clock),
    wake: () => {},
  });
}

describe('AdmissionPass waiting', () => {
  it('counts a wait that a step just began until the next read of the waits says otherwise', async () => {
    const admission = pass(null);
    expect(admission.waiting).toBe(false);
    admission.waitBegan();
    expect(admission.waiting).toBe(true);
    await admission.followWaits();
    expect(admission.waiting).toBe(false);
  });

  it('keeps counting it while the waits read says one remains', async () => {
    const admission = pass(new Date(Date.now() + 60_000).toISOString());
    admission.waitBegan();
    await admission.followWaits();
    expect(admission.waiting).toBe(true);
  });
});
