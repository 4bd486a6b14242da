import type { TeamReadArgs } from '@agent-teams/core';
import type { Builder } from './builder.js';
import type { Refs } from './refs.js';

/** `Team.history`/`Team.results` arguments as the core reads them. */
function readArgs(args: {
  filter?: { memberId?: string | number | null; jobId?: string | number | null; query?: string | null } | null;
  limit?: number | null;
  cursor?: string | null;
}): TeamReadArgs {
  const id = (value: string | number | null | undefined) =>
    value === null || value === undefined ? null : String(value);
  return {
    memberId: id(args.filter?.memberId),
    jobId: id(args.filter?.jobId),
    query: args.filter?.query ?? null,
    limit: args.limit ?? null,
    cursor: args.cursor ?? null,
  };
}

/**
 * Adds the shared record: `RecordMessage`, `Team.context`, and the history/result reads
 * (`Team.history`, `Team.results`, `Team.result`).
 *
 * @remarks The three reads are the owner's view of the member read tools (`read_team_history`,
 * `search_team_results`, `read_team_result`): the same core functions, filters, cursors and
 * 24,000-byte budget; a `Team` here always comes from an owner-scoped read.
 */
export function addRecord(builder: Builder, refs: Refs): void {
  refs.RecordMessage.implement({
    description: 'A message of the shared record.',
    fields: (t) => ({
      id: t.exposeID('id'),
      kind: t.field({ type: refs.RecordKind, resolve: (message) => message.kind }),
      job: t.field({
        type: refs.Job,
        nullable: true,
        resolve: (message, _args, ctx) => (message.jobId ? ctx.loaders.jobs.load(message.jobId) : null),
      }),
      member: t.field({
        type: refs.Member,
        nullable: true,
        resolve: (message, _args, ctx) => (message.memberId ? ctx.loaders.members.load(message.memberId) : null),
      }),
      from: t.field({
        type: refs.Member,
        nullable: true,
        description: 'The member who sent it, null for a person.',
        resolve: (message, _args, ctx) =>
          message.fromMemberId ? ctx.loaders.members.load(message.fromMemberId) : null,
      }),
      text: t.exposeString('text', { description: 'At most 6,000 UTF-8 bytes.' }),
      truncated: t.exposeBoolean('truncated'),
      createdAt: t.field({ type: 'DateTime', resolve: (message) => message.createdAt }),
    }),
  });
  refs.TeamContext.implement({
    fields: (t) => ({
      goal: t.exposeString('goal'),
      members: t.field({ type: [refs.Member], resolve: (context) => context.members }),
      messages: t.field({ type: [refs.RecordMessage], resolve: (context) => context.messages }),
    }),
  });
  addHistoryTypes(builder, refs);

  const RecordFilter = builder.inputType('RecordFilter', {
    fields: (t) => ({
      memberId: t.id(),
      jobId: t.id(),
      query: t.string({ description: 'Literal, case-insensitive substring.' }),
    }),
  });
  builder.objectFields(refs.Team, (t) => ({
    context: t.field({
      type: refs.TeamContext,
      description:
        'What every member sees: goal, roster and the recent shared record (8 messages within 24,000 bytes).',
      resolve: (team, _args, ctx) => ctx.core.teams.context(team),
    }),
    history: t.field({
      type: refs.HistoryPage,
      description: 'The retained shared record (at most 100 messages), newest first, byte-budgeted.',
      args: { filter: t.arg({ type: RecordFilter }), limit: t.arg.int({ defaultValue: 8 }), cursor: t.arg.string() },
      resolve: (team, args, ctx) => ctx.core.history.page(team, readArgs(args)),
    }),
    results: t.field({
      type: refs.ResultSearchPage,
      description: 'Finished requests (completed, failed, cancelled; receipts excluded), newest first.',
      args: { filter: t.arg({ type: RecordFilter }), limit: t.arg.int({ defaultValue: 8 }), cursor: t.arg.string() },
      resolve: (team, args, ctx) => ctx.core.history.results(team, readArgs(args)),
    }),
    result: t.field({
      type: refs.ResultRecord,
      nullable: true,
      description: 'One request or receipt with its retained answer.',
      args: { jobId: t.arg.id({ required: true }) },
      resolve: (team, args, ctx) => ctx.core.history.result(team, String(args.jobId)),
    }),
  }));
}

function addHistoryTypes(_builder: Builder, refs: Refs): void {
  refs.HistoryPage.implement({
    fields: (t) => ({
      records: t.field({ type: [refs.RecordMessage], resolve: (page) => page.records }),
      nextCursor: t.exposeString('nextCursor', { nullable: true }),
      cursorExpired: t.exposeBoolean('cursorExpired', {
        description: "The cursor's anchor left the retained history; the page is empty; start again.",
      }),
    }),
  });
  refs.ResultSummary.implement({
    fields: (t) => ({
      job: t.field({ type: refs.Job, resolve: (summary) => summary.job }),
      status: t.field({ type: refs.JobStatus, resolve: (summary) => summary.status }),
      requestExcerpt: t.exposeString('requestExcerpt', { description: 'At most 500 UTF-8 bytes.' }),
      resultExcerpt: t.exposeString('resultExcerpt', {
        nullable: true,
        description: 'At most 500 UTF-8 bytes; null when no answer is available.',
      }),
      truncated: t.exposeBoolean('truncated'),
    }),
  });
  refs.ResultSearchPage.implement({
    fields: (t) => ({
      results: t.field({ type: [refs.ResultSummary], resolve: (page) => page.results }),
      nextCursor: t.exposeString('nextCursor', { nullable: true }),
      cursorExpired: t.exposeBoolean('cursorExpired'),
    }),
  });
  refs.ResultRecord.implement({
    fields: (t) => ({
      job: t.field({ type: refs.Job, resolve: (record) => record.job }),
      requestExcerpt: t.exposeString('requestExcerpt', { description: 'At most 500 UTF-8 bytes of the request.' }),
      result: t.field({ type: refs.JobResult, resolve: (record) => record.result }),
    }),
  });
}
