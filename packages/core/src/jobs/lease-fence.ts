import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import type { JobLease } from '../ports/store/leases.js';

/** The error of a write by a server that no longer holds the job (another server drives it). */
export function staleLease(): DomainError {
  return new DomainError(ErrorCode.STALE_LEASE, 'This server no longer holds the job; another server drives it.', {
    field: 'jobId',
  });
}

/**
 * Refuses a fenced write (STALE_LEASE) unless the job is still held by the writing server with
 * the fence it presents: every claim increments the fence, so a server paused past its lease
 * can never write a job another server took over.
 */
export function checkFence(held: JobLease | null | undefined, presented: JobLease): void {
  if (held?.serverId !== presented.serverId || held.fence !== presented.fence) throw staleLease();
}
