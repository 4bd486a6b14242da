import { Limits } from '../limits/limits.js';
import type { AgentDefinition } from '../model/agent.js';
import { hashFilter } from '../pagination/cursor.js';
import { type CursorScope, seqPageRequest, toConnection } from './connections.js';
import type { Core, CoreDeps } from './core-types.js';
import { validateQuery } from './query.js';

const AGENT_PAGE = { defaultSize: Limits.connectionPage.default, maxSize: Limits.connectionPage.max };

/** True when the folded query is part of the agent's name, title or description. */
function matches(agent: AgentDefinition, folded: string): boolean {
  return [agent.name, agent.title, agent.description].some((text) => text.toLowerCase().includes(folded));
}

/**
 * Builds the `agents` use cases: a case-insensitive substring search over the catalog, in
 * catalog order. A cursor is the agent's catalog index, bound to the query it was minted for.
 */
export function agentService(deps: CoreDeps): Core['agents'] {
  return {
    async search(args) {
      const folded = validateQuery(args.query ?? '', Limits.catalogQueryChars).toLowerCase();
      const scope: CursorScope = { kind: 'agent', filter: hashFilter({ query: folded }) };
      const request = seqPageRequest(args, scope, AGENT_PAGE);
      const indexed = (await deps.catalog.list())
        .map((agent, index) => ({ agent, index }))
        .filter(
          ({ agent, index }) => (request.afterSeq === null || index > request.afterSeq) && matches(agent, folded),
        );
      const page = { items: indexed.slice(0, request.first), hasNextPage: indexed.length > request.first };
      const connection = toConnection(page, (item) => item.index, scope);
      return { ...connection, edges: connection.edges.map((e) => ({ cursor: e.cursor, node: e.node.agent })) };
    },
    get: (id) => deps.catalog.get(id),
  };
}
