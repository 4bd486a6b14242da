import { asOwnerId } from '@agent-teams/core';
import type { Builder } from './builder.js';
import { addConnection } from './connection.js';
import { requireViewer } from './context.js';
import type { Refs } from './refs.js';

/**
 * Adds `Viewer` (the authenticated owner: their teams and inbox) and `Query.viewer`.
 *
 * @remarks `Viewer.teams`/`inbox` read the owner from the `Viewer` value, which only
 * `Query.viewer` creates from the authenticated context, so they are owner-scoped by
 * construction.
 */
export function addViewer(builder: Builder, refs: Refs): void {
  const TeamConnection = addConnection(builder, refs.PageInfo, 'Team', refs.Team);

  refs.Viewer.implement({
    fields: (t) => ({
      id: t.exposeID('id'),
      teams: t.field({
        type: TeamConnection,
        description: 'Newest first.',
        args: { first: t.arg.int({ defaultValue: 20 }), after: t.arg.string() },
        resolve: (viewer, args, ctx) => ctx.core.teams.list(asOwnerId(viewer.id), args),
      }),
      inbox: t.field({
        type: refs.JobConnection,
        description: "Jobs of this viewer waiting for a person's answer, oldest first.",
        args: { first: t.arg.int({ defaultValue: 20 }), after: t.arg.string() },
        resolve: (viewer, args, ctx) => ctx.core.jobs.inbox(asOwnerId(viewer.id), args),
      }),
    }),
  });

  builder.queryField('viewer', (t) =>
    t.field({ type: refs.Viewer, resolve: (_root, _args, ctx) => ({ id: requireViewer(ctx) }) }),
  );
}
