import { asOwnerId, type Core, type Logger, type TeamReads, TeamStatus } from '@agent-teams/core';

/**
 * Restart reconciliation for teams: a team whose creation was interrupted (still CREATING) has
 * its member conversations ensured again and becomes READY once all exist; until then it stays
 * CREATING and admits nothing. DISCONNECTED teams are left alone: they wait for `reconnectTeam`.
 *
 * @remarks Failures are logged per team and never thrown, so one team cannot stop the start.
 * @returns how many teams became READY.
 */
export async function resumeCreatingTeams(deps: {
  readonly store: Pick<TeamReads, 'listTeamsByStatus'>;
  readonly core: Pick<Core, 'teams'>;
  readonly logger: Logger;
}): Promise<number> {
  let ready = 0;
  let creating: readonly { id: string; owner: string }[] = [];
  try {
    creating = await deps.store.listTeamsByStatus(TeamStatus.CREATING);
  } catch (error) {
    deps.logger.error('could not list teams still being created', { error: String(error) });
    return 0;
  }
  for (const team of creating) {
    try {
      const after = await deps.core.teams.reconnect(asOwnerId(team.owner), team.id);
      if (after.status === TeamStatus.READY) ready += 1;
      else deps.logger.warn('team creation still incomplete after restart', { teamId: team.id });
    } catch (error) {
      deps.logger.error('could not resume team creation', { teamId: team.id, error: String(error) });
    }
  }
  return ready;
}
