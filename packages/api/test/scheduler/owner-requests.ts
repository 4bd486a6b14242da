import type { Core, Job, OwnerId } from '@agent-teams/core';

/**
 * Creates a READY team of `owner` with `size` researcher members and sends each member `text`
 * (one conversation each); `tag` names the team and keys both calls.
 */
export async function sendAsOwner(
  core: Core,
  owner: OwnerId,
  size: number,
  text: string,
  tag: string,
): Promise<readonly Job[]> {
  const members = Array.from({ length: size }, (_, i) => ({ name: `m${i}`, agentId: 'researcher' }));
  const team = await core.teams.create(owner, { clientRequestId: `t-${tag}`, name: tag, goal: 'Test', members });
  const roster = await core.teams.members([team.id]);
  return core.requests.send(owner, {
    teamId: team.id,
    memberIds: roster.map((m) => m.id),
    text,
    clientRequestId: `r-${tag}`,
  });
}
