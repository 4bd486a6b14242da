import { notFound } from '../errors/domain-error.js';
import { asTeamId } from '../model/ids.js';
import type { EventLog, TeamReads } from '../ports/team-store.js';
import type { Core, UsesStore } from './core-types.js';

/** The store roles these use cases depend on. */
type Deps = UsesStore<TeamReads & EventLog>;

/** Most events one read returns, whatever the caller asks (keeps one read bounded). */
const MAX_EVENTS_PER_READ = 500;

/**
 * Builds the `events` use case: owner-scoped reads of a team's event log.
 *
 * @remarks The log is the one source of live updates; subscriptions re-read it from their last
 * seq after every wake-up, which is what makes replay gap-free and duplicate-free.
 */
export function eventService(deps: Deps): Core['events'] {
  return {
    async read(owner, teamId, afterSeq, limit) {
      const team = await deps.store.findTeam(owner, asTeamId(teamId));
      // Another owner's team reads as absent: no existence leak.
      if (team === null) throw notFound('team');
      const bounded = Math.max(1, Math.min(Math.trunc(limit), MAX_EVENTS_PER_READ));
      return deps.store.readEvents(team.id, Math.max(0, Math.trunc(afterSeq)), bounded);
    },
  };
}
