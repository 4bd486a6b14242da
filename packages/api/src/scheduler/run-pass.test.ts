import type { Job, JobId, LeasedJob, Team } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import type { AdmissionPass } from './admission-pass.js';
import type { JobDriver } from './job-driver.js';
import { type PassContext, runPass } from './run-pass.js';
import type { ServerLease } from './server-lease.js';

const job = (id: string, phase = 'ADMITTING'): Job => ({ id: id as JobId, teamId: 'team_1', phase }) as unknown as Job;
const leased = (id: string, phase?: string): LeasedJob => ({ job: job(id, phase), lease: { serverId: 's', fence: 1 } });

/** One full pass whose claim answers `claimed`, on a lease `takenOver` or not; the steps it asks for. */
async function pass(opts: {
  takenOver: boolean;
  claimed: readonly string[];
  driven?: readonly string[];
  started?: readonly string[];
  holds?: (id: string) => boolean;
  /** The phase the claim reads per job (default ADMITTING, as started). */
  phases?: Readonly<Record<string, string>>;
  /** Whether the driver has a step of the job queued or running (default: yes). */
  stepping?: (id: string) => boolean;
}) {
  const requested: string[] = [];
  const ctx: PassContext = {
    store: { findTeams: async () => [] as Team[] },
    lease: {
      renewIfDue: async () => {},
      takenOver: opts.takenOver,
      claim: async () => opts.claimed.map((id) => leased(id, opts.phases?.[id])),
      holds: (id: string) => opts.holds?.(id) ?? true,
    } as unknown as ServerLease,
    admission: { admit: async () => [], followWaits: async () => {} } as unknown as AdmissionPass,
    driver: {
      request: (j: Job) => requested.push(j.id),
      stepping: (id: string) => opts.stepping?.(id) ?? true,
    } as unknown as JobDriver,
    driven: new Map((opts.driven ?? []).map((id) => [id as JobId, job(id)])),
    started: new Map((opts.started ?? []).map((id) => [id as JobId, job(id)])),
    full: true,
    likelyQueued: false,
    stopped: () => false,
  };
  await runPass(ctx);
  return { requested, ctx };
}

describe('runPass claim', () => {
  it('drives every job a takeover claim finds', async () => {
    const { requested } = await pass({ takenOver: false, claimed: ['job_a', 'job_b'] });
    expect(requested).toEqual(['job_a', 'job_b']);
  });

  it('alone and taken over, leaves a held job neither driven nor started to the ride that admitted it', async () => {
    // job_r: an admission that rode an enqueue, committed, its start still to come (decision 0223).
    const { requested, ctx } = await pass({ takenOver: true, claimed: ['job_a', 'job_r'], driven: ['job_a'] });
    expect(requested).toEqual(['job_a']);
    expect([...ctx.driven.keys()]).toEqual(['job_a', 'job_r']);
  });

  it('does not drive again what was started since the last claim, then forgets it', async () => {
    const { requested, ctx } = await pass({
      takenOver: true,
      claimed: ['job_a', 'job_s'],
      driven: ['job_a'],
      started: ['job_s'],
    });
    expect(requested).toEqual(['job_a']);
    expect(ctx.started.size).toBe(0);
  });

  it('keeps a started job the claim read missed only while the lease still holds it', async () => {
    const holds = (id: string) => id === 'job_late';
    const { ctx } = await pass({ takenOver: true, claimed: [], started: ['job_late', 'job_ended'], holds });
    expect([...ctx.driven.keys()]).toEqual(['job_late']);
  });

  it('drives a job started since the last claim once its phase changed: a cancel, its first step', async () => {
    // Started by a ride and cancelled before any pass ran: the cancel's pass must ask for its step.
    const { requested } = await pass({
      takenOver: true,
      claimed: ['job_a', 'job_s', 'job_t'],
      driven: ['job_a', 'job_s', 'job_t'],
      started: ['job_s', 'job_t'],
      phases: { job_s: 'CANCELLING', job_t: 'ADMITTING' },
    });
    expect(requested).toEqual(['job_a', 'job_s']);
  });

  it('drives a job started since the last claim whose first step is already over (failed, backing off)', async () => {
    // The first start failed transiently: the driver's retry timer woke this pass, which must ask
    // for the step again rather than leave the job to the safety net.
    const { requested } = await pass({
      takenOver: false,
      claimed: ['job_s', 'job_t'],
      driven: ['job_s', 'job_t'],
      started: ['job_s', 'job_t'],
      stepping: (id) => id === 'job_t',
    });
    expect(requested).toEqual(['job_s']);
  });
});
