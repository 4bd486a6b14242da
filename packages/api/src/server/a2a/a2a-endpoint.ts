import { AgentCard } from '@a2a-js/sdk';
import type { AgentDefinition, Core, DomainError, Member, OwnerId, Team } from '@agent-teams/core';
import type { Plugin } from 'graphql-yoga';
import { requestLogger } from '../../observability/log-fields.js';
import type { TeamEventView } from '../../schema/views.js';
import type { InteropDeps } from '../edge-deps.js';
import type { TeamFeeds } from '../team-feed.js';
import { answerJsonRpc } from './a2a-json-rpc.js';
import { FollowSlots } from './follow-slots.js';
import { memberAgentCard } from './member-agent-card.js';
import { MemberTaskHandler } from './member-task-handler.js';

/** What the A2A endpoint is built from (the server's own parts). */
export interface A2aEndpointDeps extends InteropDeps {
  readonly teamFeeds: TeamFeeds<TeamEventView>;
  /** The owner's rate limit, asked before each new request: null, or the RATE_LIMITED refusal. */
  readonly takeToken: (owner: OwnerId) => DomainError | null;
  /** The origin written into agent cards; default: the origin each request was sent to. */
  readonly publicUrl?: string;
}

/** `/a2a/{teamId}/{memberId}`, then nothing (JSON-RPC) or one of the card's two paths. */
const ROUTE = /^\/a2a\/([^/]+)\/([^/]+)(\/\.well-known\/agent-card\.json|\/agent-card\.json|\/)?$/;

interface Route {
  readonly teamId: string;
  readonly memberId: string;
  readonly kind: 'card' | 'rpc';
}

function routeOf(pathname: string): Route | null {
  const match = ROUTE.exec(pathname);
  if (!match?.[1] || !match[2]) return null;
  try {
    const kind = match[3] === undefined || match[3] === '/' ? 'rpc' : 'card';
    return { teamId: decodeURIComponent(match[1]), memberId: decodeURIComponent(match[2]), kind };
  } catch {
    return null;
  }
}

/**
 * The Yoga plugin making every member an A2A agent: its card at
 * `/a2a/{teamId}/{memberId}/.well-known/agent-card.json` (and `.../agent-card.json`) and its
 * JSON-RPC endpoint at `/a2a/{teamId}/{memberId}`, both for the team owner's bearer token only.
 *
 * @remarks No token or an unknown one is 401 with a `Bearer` challenge; a team or member that
 * does not exist or belongs to another owner is 404 — the same answer, so ids leak nothing.
 */
export function useA2aEndpoint(deps: A2aEndpointDeps): Plugin {
  const follows = new FollowSlots();
  return {
    async onRequest({ request, url, endResponse }) {
      if (!url.pathname.startsWith('/a2a/') || request.method === 'OPTIONS') return;
      const route = routeOf(url.pathname);
      if (route === null) return;
      // Every line this request writes carries its id (`requestId`).
      const log = requestLogger(deps.logger, request.headers);
      const owner = (await deps.auth.authenticate(request.headers.get('authorization'), log))?.owner ?? null;
      if (owner === null) {
        endResponse(
          Response.json(
            { error: 'A valid bearer token is required.' },
            { status: 401, headers: { 'www-authenticate': 'Bearer realm="agent-teams"' } },
          ),
        );
        return;
      }
      const found = await findMember(deps.core, owner, route);
      if (found === null) {
        endResponse(Response.json({ error: 'No such agent.' }, { status: 404 }));
        return;
      }
      const card = memberAgentCard({ origin: deps.publicUrl ?? url.origin, ...found, version: deps.version });
      const allowed = route.kind === 'card' ? ['GET', 'HEAD'] : ['POST'];
      if (!allowed.includes(request.method)) {
        endResponse(new Response(null, { status: 405, headers: { allow: allowed.join(', ') } }));
      } else if (route.kind === 'card') {
        endResponse(Response.json(AgentCard.toJSON(card), { headers: { 'cache-control': 'private, no-cache' } }));
      } else {
        const stop = new AbortController();
        const handler = new MemberTaskHandler({
          core: deps.core,
          teamFeeds: deps.teamFeeds,
          takeToken: deps.takeToken,
          logger: log,
          owner,
          ...found,
          card,
          signal: AbortSignal.any([request.signal, stop.signal]),
          follows,
        });
        endResponse(
          await answerJsonRpc(request, {
            handler,
            card,
            logger: log,
            maxBodyBytes: deps.maxBodyBytes,
            onCancel: () => stop.abort(),
          }),
        );
      }
    },
  };
}

/** The owner's team and member the route names, with its agent; null when either is not theirs. */
async function findMember(
  core: Core,
  owner: OwnerId,
  route: Route,
): Promise<{ team: Team; member: Member; agent: AgentDefinition | null } | null> {
  const team = await core.teams.get(owner, route.teamId);
  if (team === null) return null;
  const member = (await core.teams.members([team.id])).find((candidate) => candidate.id === route.memberId);
  if (member === undefined) return null;
  // The card still describes a member whose agent left the catalog (or a catalog that fails).
  const agent = await core.agents.get(member.agentId).catch(() => null);
  return { team, member, agent };
}
