import type { Builder } from './builder.js';
import { requireViewer } from './context.js';
import type { Refs } from './refs.js';

/** Adds `MentionTarget` and `Query.mentionTargets` (members of the viewer's ready teams). */
export function addMention(builder: Builder, refs: Refs): void {
  refs.MentionTarget.implement({
    fields: (t) => ({
      id: t.exposeID('id', { description: "'<teamId>/<memberId>'" }),
      label: t.exposeString('label', {
        description: "'<team name> / <member name>' when that fits 120 UTF-16 units, else the member name.",
      }),
      description: t.exposeString('description'),
      team: t.field({ type: refs.Team, resolve: (target) => target.team }),
      member: t.field({ type: refs.Member, resolve: (target) => target.member }),
    }),
  });

  builder.queryField('mentionTargets', (t) =>
    t.field({
      type: [refs.MentionTarget],
      description: "Mention targets across the viewer's ready teams: at most 16, query at most 200 characters.",
      args: { query: t.arg.string({ required: true }) },
      resolve: (_root, args, ctx) => ctx.core.mentions.search(requireViewer(ctx), args.query),
    }),
  );
}
