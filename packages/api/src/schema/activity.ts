import type { Builder } from './builder.js';
import type { Refs } from './refs.js';

/**
 * Adds the `ActivityResult` union and `Team.activity`: a page of request jobs, or
 * `ActivityUnchanged` when the client's revision still matches (a cheap poll).
 */
export function addActivity(builder: Builder, refs: Refs): void {
  refs.ActivityUnchanged.implement({
    isTypeOf: (value) =>
      typeof value === 'object' && value !== null && 'unchanged' in value && value.unchanged === true,
    fields: (t) => ({
      unchanged: t.exposeBoolean('unchanged'),
      revision: t.exposeString('revision'),
    }),
  });
  refs.ActivityPage.implement({
    isTypeOf: (value) =>
      typeof value === 'object' && value !== null && 'unchanged' in value && value.unchanged === false,
    fields: (t) => ({
      revision: t.exposeString('revision'),
      jobs: t.field({ type: refs.JobConnection, resolve: (page) => page.jobs }),
    }),
  });
  const ActivityResult = builder.unionType('ActivityResult', {
    types: [refs.ActivityUnchanged, refs.ActivityPage],
    resolveType: (value) => (value.unchanged ? refs.ActivityUnchanged : refs.ActivityPage),
  });

  builder.objectField(refs.Team, 'activity', (t) =>
    t.field({
      type: ActivityResult,
      description: 'The activity feed: a page of request jobs, or Unchanged when revision still matches.',
      args: { revision: t.arg.string(), first: t.arg.int({ defaultValue: 20 }), after: t.arg.string() },
      resolve: (team, args, ctx) => ctx.core.teams.activity(team, args),
    }),
  );
}
