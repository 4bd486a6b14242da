import {
  ACTIVE_PHASES,
  type ClaimArgs,
  type ClaimedJobs,
  checkFence,
  type JobId,
  type JobLease,
  type LeasedJob,
  type Leases,
  type TakenOverJob,
} from '@agent-teams/core';
import type { MemoryStoreState } from './state.js';

/** Leases a job to a server, incrementing its fence (a claim or an admission). */
export function leaseJob(state: MemoryStoreState, jobId: JobId, serverId: string): JobLease {
  const fence = (state.jobLeases.get(jobId)?.fence ?? 0) + 1;
  state.jobLeases.set(jobId, { serverId, fence });
  return { serverId, fence };
}

/** `TeamStore.claimActiveJobs`: claims the orphans, answers what the server holds and what it took over. */
function claimIn(state: MemoryStoreState, args: ClaimArgs): ClaimedJobs {
  const alive = (serverId: string | null): boolean => {
    if (serverId === null) return false;
    const lease = state.serverLeases.get(serverId);
    return lease !== undefined && lease.expiresAtMs > args.nowMs;
  };
  const held: LeasedJob[] = [];
  const takenOver: TakenOverJob[] = [];
  for (const job of state.jobs.values()) {
    if (!ACTIVE_PHASES.includes(job.phase)) continue;
    const holder = state.jobLeases.get(job.id)?.serverId ?? null;
    const claims = args.heldOnly !== true && (args.takeOver === true || !alive(holder));
    if (holder !== args.serverId && claims) {
      leaseJob(state, job.id, args.serverId);
      takenOver.push({ jobId: job.id, fromServer: holder });
    }
    const lease = state.jobLeases.get(job.id);
    if (lease?.serverId === args.serverId) held.push({ job, lease: { serverId: args.serverId, fence: lease.fence } });
  }
  return { held, takenOver };
}

/** `TeamStore.releaseServerLeases`: the server's jobs lose their holder, its lease row goes. */
function releaseIn(state: MemoryStoreState, serverId: string): void {
  for (const [jobId, lease] of state.jobLeases) {
    if (lease.serverId === serverId) state.jobLeases.set(jobId, { serverId: null, fence: lease.fence });
  }
  state.serverLeases.delete(serverId);
}

/** Refuses a fenced write unless the job is still held by that server with that fence. */
export function checkLeaseIn(state: MemoryStoreState, jobId: JobId, lease: JobLease): void {
  const current = state.jobLeases.get(jobId);
  checkFence(current?.serverId == null ? null : { serverId: current.serverId, fence: current.fence }, lease);
}

/** The in-memory {@link Leases}. */
export function memoryLeases(state: MemoryStoreState): Leases {
  return {
    async renewServerLease(args) {
      state.serverLeases.set(args.serverId, { host: args.host, expiresAtMs: args.expiresAtMs });
    },
    claimActiveJobs: async (args) => claimIn(state, args),
    releaseServerLeases: async (serverId) => releaseIn(state, serverId),
  };
}
