import { A2A_PROTOCOL_VERSION, type AgentCard } from '@a2a-js/sdk';
import type { AgentDefinition, Member, Team } from '@agent-teams/core';

/** The path of a member's agent (its JSON-RPC URL); the card lives under it. */
export function memberAgentPath(teamId: string, memberId: string): string {
  return `/a2a/${encodeURIComponent(teamId)}/${encodeURIComponent(memberId)}`;
}

/**
 * The agent card of a member: its name, its role (the agent's title) and the agent's description,
 * streaming, a bearer scheme (the owner's token), and one JSON-RPC interface of protocol 1.0.
 *
 * @param origin - where clients reach this server (`scheme://host[:port]`).
 */
export function memberAgentCard(args: {
  readonly origin: string;
  readonly team: Team;
  readonly member: Member;
  readonly agent: AgentDefinition | null;
  readonly version: string;
}): AgentCard {
  const { origin, team, member, agent, version } = args;
  const role = agent?.title ?? member.agentId;
  const about = agent?.description ?? '';
  const skillDescription = about === '' ? `${role} work for the team.` : about;
  return {
    name: member.name,
    description: `${member.name}, ${role} of the team "${team.name}" (goal: ${team.goal}). ${about}`.trim(),
    supportedInterfaces: [
      {
        url: `${origin}${memberAgentPath(team.id, member.id)}`,
        protocolBinding: 'JSONRPC',
        protocolVersion: A2A_PROTOCOL_VERSION,
        tenant: '',
      },
    ],
    provider: { organization: 'Agent Teams', url: origin },
    version,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      bearer: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: { scheme: 'Bearer', bearerFormat: '', description: "The team owner's Agent Teams token." },
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: agent?.name ?? member.agentId,
        name: role,
        description: skillDescription,
        tags: [agent?.name ?? member.agentId],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}
