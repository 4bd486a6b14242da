import {
  asTeamId,
  type Core,
  DomainError,
  type OwnerId,
  type Team,
  type TeamEvent,
  TeamEventKind,
} from '@agent-teams/core';
import type { ViewBatch } from '../events/event-hub.js';
import type { KnownMembers } from '../events/known-members.js';
import { type Builder, SHARES_ACROSS_ARGUMENTS } from './builder.js';
import { type ApiContext, requireViewer } from './context.js';
import { createLoaders, type Loaders } from './loaders.js';
import type { Refs } from './refs.js';
import { messageEventView } from './team-message.js';
import type { TeamEventView } from './views.js';

/** Adds the `TeamEvent` interface, its four types and `Subscription.teamEvents`. */
export function addTeamEvents(builder: Builder, refs: Refs): void {
  refs.TeamEvent.implement({
    description: "One entry of a team's ordered event log.",
    fields: (t) => ({
      seq: t.exposeInt('seq', {
        description: 'Strictly increasing per team; subscribe with afterSeq to resume without gaps.',
      }),
      team: t.field({ type: refs.Team, resolve: (event) => event.team }),
    }),
    resolveType: (event) => event.__typename,
  });
  const eventType = <K extends TeamEventView['__typename']>(name: K) =>
    builder.objectRef<Extract<TeamEventView, { __typename: K }>>(name);
  eventType('JobChanged').implement({
    interfaces: [refs.TeamEvent],
    fields: (t) => ({ job: t.field({ type: refs.Job, resolve: (event) => event.job }) }),
  });
  eventType('RecordAppended').implement({
    interfaces: [refs.TeamEvent],
    fields: (t) => ({ message: t.field({ type: refs.RecordMessage, resolve: (event) => event.message }) }),
  });
  eventType('MemberChanged').implement({
    interfaces: [refs.TeamEvent],
    fields: (t) => ({ member: t.field({ type: refs.Member, resolve: (event) => event.member }) }),
  });
  eventType('TeamChanged').implement({ interfaces: [refs.TeamEvent], fields: () => ({}) });
  eventType('TaskChanged').implement({
    interfaces: [refs.TeamEvent],
    fields: (t) => ({
      task: t.field({ type: refs.Task, resolve: (event) => event.task }),
      reason: t.exposeString('reason', {
        nullable: true,
        description: 'Why the system changed the task (its owner was retired, the team closed); null otherwise.',
      }),
    }),
  });

  builder.subscriptionField('teamEvents', (t) =>
    t.field({
      type: refs.TeamEvent,
      description: 'Events of one team in seq order; with afterSeq, first replays what was missed.',
      args: { teamId: t.arg.id({ required: true }), afterSeq: t.arg.int() },
      // The arguments only choose the stream; `resolve` returns the event: results can be shared.
      extensions: { [SHARES_ACROSS_ARGUMENTS]: true },
      subscribe: async (_root, args, ctx) => {
        const owner = requireViewer(ctx);
        const team = await ctx.core.teams.get(owner, asTeamId(String(args.teamId)));
        if (team === null) throw new DomainError('NOT_FOUND', 'No such team.');
        const afterSeq = args.afterSeq ?? team.lastEventSeq;
        await assertResumable(ctx, owner, team, afterSeq);
        return ctx.teamFeeds.follow(owner, team.id, afterSeq, team.lastEventSeq);
      },
      // The event's fields that load the team (a member's status) see the team its view shows.
      resolve: (event, _args, ctx) => {
        ctx.loaders.teams.prime(event.team.id, event.team);
        return event;
      },
    }),
  );
}

/**
 * Throws RESUME_EXPIRED unless every event after `afterSeq` is still in the log: the log keeps
 * at least the last 1,000 events or 24 hours per team, and seqs have no gaps, so the first
 * retained event after `afterSeq` must be `afterSeq + 1`. A seq past the head is refused too:
 * the client's state belongs to another log (refetch either way).
 */
async function assertResumable(ctx: ApiContext, owner: OwnerId, team: Team, afterSeq: number): Promise<void> {
  const expired = () =>
    new DomainError('RESUME_EXPIRED', 'Events after this seq are no longer retained; refetch the team.', {
      field: 'afterSeq',
    });
  if (!Number.isSafeInteger(afterSeq) || afterSeq < 0 || afterSeq > team.lastEventSeq) throw expired();
  if (afterSeq === team.lastEventSeq) return;
  const [first] = await ctx.core.events.read(owner, team.id, afterSeq, 1);
  if (first?.seq !== afterSeq + 1) throw expired();
}

/**
 * Loads what an event names into the view `teamEvents` resolves; null when the entity no longer
 * exists (nothing to show). The events of one batch (one commit's events, loaded together after
 * that commit) share loaders: the team they all name is read once, their jobs and members in one
 * query each. Each batch gets fresh loaders (current state, never an earlier batch's cached one).
 * `known`: the members as local commits noted them, where that is exact (SQLite; `KnownMembers`).
 */
export function teamEventViewLoader(
  core: Core,
  known?: KnownMembers,
): (event: TeamEvent, batch: ViewBatch) => Promise<TeamEventView | null> {
  const shared = new WeakMap<object, Loaders>();
  return (event, batch) => {
    let loaders = shared.get(batch);
    if (loaders === undefined) {
      loaders = createLoaders(core);
      // A local commit's jobs, teams and rosters as it stored them, or read them under their
      // team's lock: its views read none of them back. Every team's: the batch, and so these
      // loaders, serve the events of every team the commit wrote (an admission pass admits across
      // teams), and an event names only its own team's rows.
      const rows = batch.rows;
      if (rows !== undefined) {
        for (const job of rows.jobs.values()) loaders.jobs.prime(job.id, job);
        for (const team of rows.teams.values()) loaders.teams.prime(team.id, team);
        for (const member of rows.members.values()) loaders.members.prime(member.id, member);
      }
      shared.set(batch, loaders);
    }
    // A member no row of this commit names, as an earlier local commit noted it (decision 0241);
    // `prime` keeps a row the batch already holds. Only in a local commit's batch, published in
    // commit order: an event read back from the log may belong to a commit not published yet
    // (with group commit, one whose log sync still runs), newer than every note.
    const member = event.memberId === null || batch.rows === undefined ? undefined : known?.get(event.memberId);
    if (member !== undefined) loaders.members.prime(member.id, member);
    return toEventView(core, loaders, event, batch);
  };
}

/** Loads the entity an event names; null when it no longer exists (nothing to show). */
async function toEventView(
  core: Core,
  loaders: Loaders,
  event: TeamEvent,
  batch: ViewBatch,
): Promise<TeamEventView | null> {
  const team = await loaders.teams.load(event.teamId);
  if (team === null) return null;
  const base = { seq: event.seq, team };
  switch (event.kind) {
    case TeamEventKind.JOB_CHANGED: {
      const job = event.jobId ? await loaders.jobs.load(event.jobId) : null;
      return job && { __typename: 'JobChanged', ...base, job };
    }
    case TeamEventKind.RECORD_APPENDED: {
      const appended = event.recordId === null ? undefined : batch.rows?.records.get(event.recordId);
      const [message] = appended ? [appended] : event.recordId ? await core.load.records([event.recordId]) : [];
      return message ? { __typename: 'RecordAppended', ...base, message } : null;
    }
    case TeamEventKind.MESSAGE_SENT:
    case TeamEventKind.MESSAGE_DELIVERED:
      return messageEventView(core, loaders, event, base);
    case TeamEventKind.MEMBER_CHANGED: {
      const member = event.memberId ? await loaders.members.load(event.memberId) : null;
      return member && { __typename: 'MemberChanged', ...base, member };
    }
    case TeamEventKind.TASK_CHANGED: {
      const [task] = event.taskId ? await core.load.tasks([event.taskId]) : [];
      return task ? { __typename: 'TaskChanged', ...base, task, reason: event.reason ?? null } : null;
    }
    case TeamEventKind.MEMBER_SPAWNED:
    case TeamEventKind.MEMBER_RETIRED: {
      const member = event.memberId ? await loaders.members.load(event.memberId) : null;
      const __typename = event.kind === TeamEventKind.MEMBER_SPAWNED ? 'MemberSpawned' : 'MemberRetired';
      return member && { __typename, ...base, member };
    }
    case TeamEventKind.TEAM_CLOSED:
      return { __typename: 'TeamClosed', ...base };
    default:
      return { __typename: 'TeamChanged', ...base };
  }
}
