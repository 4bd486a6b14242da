import type { JobId } from '../model/ids.js';
import type { JobView } from '../model/job.js';
import type { JobReads } from '../ports/store/job-reads.js';

/**
 * Jobs by id, any owner, without their frozen inputs (decision 0246): the store's own
 * `findJobViews` when it has one, else its whole jobs (a whole job is a {@link JobView} too).
 * Missing ids are skipped.
 */
export function findJobViews(
  store: Pick<JobReads, 'findJobs' | 'findJobViews'>,
  jobIds: readonly JobId[],
): Promise<readonly JobView[]> {
  return store.findJobViews ? store.findJobViews(jobIds) : store.findJobs(jobIds);
}
