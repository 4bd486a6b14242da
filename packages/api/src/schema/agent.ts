import type { Builder } from './builder.js';
import { addConnection } from './connection.js';
import { requireViewer } from './context.js';
import type { Refs } from './refs.js';

/** Adds `Agent` (a catalog entry members are chosen from) and `Query.agents`. */
export function addAgent(builder: Builder, refs: Refs): void {
  refs.Agent.implement({
    interfaces: [refs.Node],
    isTypeOf: (value) => typeof value === 'object' && value !== null && 'runtime' in value && !('goal' in value),
    fields: (t) => ({
      id: t.exposeID('id'),
      name: t.exposeString('name', { description: "Stable catalog name, e.g. 'researcher'." }),
      title: t.exposeString('title', { description: "Display title, e.g. 'Research'." }),
      description: t.exposeString('description'),
      runtime: t.exposeString('runtime', { description: "Which runtime runs it: 'scripted', 'openai', 'a2a', ..." }),
    }),
  });
  const AgentConnection = addConnection(builder, refs.PageInfo, 'Agent', refs.Agent);

  builder.queryField('agents', (t) =>
    t.field({
      type: AgentConnection,
      description: 'The agent catalog members are chosen from.',
      args: { query: t.arg.string(), first: t.arg.int({ defaultValue: 20 }), after: t.arg.string() },
      resolve: (_root, args, ctx) => {
        requireViewer(ctx);
        return ctx.core.agents.search(args);
      },
    }),
  );
}
