import type { AdmittedJob, Job, JobId } from '@agent-teams/core';
import { MemoryLogger } from '@agent-teams/testkit';
import { describe, expect, it } from 'vitest';
import type { PreparedRide } from '../storage/admission-ride.js';
import type { AdmissionPass } from './admission-pass.js';
import { offerRides } from './enqueue-ride.js';
import type { PassContext } from './run-pass.js';

const admitted = [
  { job: { id: 'job_a' as JobId } as Job, lease: { serverId: 's', fence: 1 } },
] as const satisfies readonly AdmittedJob[];

/** An offer over an admission that always prepares a ride, and a driver told to `fail` or not. */
function offer(fail: boolean, accepting = true) {
  const told: string[] = [];
  const ride: PreparedRide = {
    args: {} as PreparedRide['args'],
    active: () => true,
    committed: () => told.push('committed'),
    published: () => told.push('published'),
  };
  const admission = { prepareRide: async () => ride } as unknown as AdmissionPass;
  const held = new Map<JobId, unknown>();
  const pass = {
    lease: { hold: (entry: AdmittedJob) => held.set(entry.job.id, entry.lease) },
    driver: {
      request: () => {
        if (fail) throw new Error('driver broke');
        told.push('requested');
      },
    },
    driven: new Map(),
    started: new Map(),
  } as unknown as Pick<PassContext, 'lease' | 'driver' | 'driven' | 'started'>;
  const logger = new MemoryLogger();
  let wakes = 0;
  const offered = offerRides(admission, pass, {
    accepting: () => accepting,
    wake: () => {
      wakes += 1;
    },
    logger,
  });
  return { offered, told, held, logger, wakes: () => wakes, pass };
}

describe('offerRides', () => {
  it('starts what the ride admitted once it committed: lease held, driven, first step asked', async () => {
    const { offered, told, held, pass } = offer(false);
    const ride = await offered.prepare(new Date().toISOString());
    ride?.committed({ admitted, error: null, skipped: false });
    ride?.published();
    expect(told).toEqual(['committed', 'requested', 'published']);
    expect(held.get('job_a' as JobId)).toEqual({ serverId: 's', fence: 1 });
    expect(pass.driven.has('job_a' as JobId) && pass.started.has('job_a' as JobId)).toBe(true);
  });

  it('never throws after COMMIT: a failure to start the jobs is logged and a pass takes them over', async () => {
    const { offered, logger, wakes, pass } = offer(true);
    const ride = await offered.prepare(new Date().toISOString());
    expect(() => ride?.committed({ admitted, error: null, skipped: false })).not.toThrow();
    expect(wakes()).toBe(1);
    // Driven and not started: the woken full pass asks for its step.
    expect(pass.driven.has('job_a' as JobId)).toBe(true);
    expect(pass.started.has('job_a' as JobId)).toBe(false);
    expect(logger.entries).toContainEqual(expect.objectContaining({ level: 'error' }));
  });

  it('offers nothing once the scheduler does not accept', async () => {
    expect(await offer(false, false).offered.prepare(new Date().toISOString())).toBeNull();
  });
});
