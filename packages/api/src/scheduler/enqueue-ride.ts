import type { Logger } from '@agent-teams/core';
import type { EnqueueAdmission } from '../storage/admission-ride.js';
import type { AdmissionPass } from './admission-pass.js';
import { type PassContext, startAdmitted } from './run-pass.js';

/**
 * The scheduler's offer to the store: its admission, run inside each local enqueue's transaction
 * while `accepting` (started, not stopping) and the admission accepts (a slot free, not backing
 * off: `AdmissionPass.prepareRide`; on PostgreSQL only if the planning lock is free then). What it
 * admitted starts at once after COMMIT, before the commit's events are published, as a pass starts
 * what it admitted (decisions 0223 and 0229).
 */
export function offerRides(
  admission: AdmissionPass,
  pass: Pick<PassContext, 'lease' | 'driver' | 'driven' | 'started'>,
  scheduler: { readonly accepting: () => boolean; readonly wake: () => void; readonly logger: Logger },
): EnqueueAdmission {
  const { accepting, wake, logger } = scheduler;
  return {
    async prepare(now) {
      if (!accepting()) return null;
      const ride = await admission.prepareRide(now, pass.driven.size);
      if (ride === null) return null;
      return {
        args: ride.args,
        active: accepting,
        committed(outcome) {
          // Called after COMMIT: a throw here would turn a committed request into an error.
          try {
            ride.committed(outcome);
            // A job admitted while the scheduler stopped stays leased here: the next start takes it over.
            if (accepting()) startAdmitted(pass, outcome.admitted);
          } catch (error) {
            // The jobs are leased to this server in the database: counted driven and not started,
            // so the full pass woken here asks for their steps.
            for (const { job, lease } of outcome.admitted) {
              if (lease === undefined) continue;
              pass.started.delete(job.id);
              pass.driven.set(job.id, job);
            }
            logger.error('starting the jobs an enqueue admitted failed; a pass takes them over', {
              jobIds: outcome.admitted.map(({ job }) => job.id).join(','),
              error: String(error),
            });
            wake();
          }
        },
        published: () => ride.published(),
      };
    },
  };
}
