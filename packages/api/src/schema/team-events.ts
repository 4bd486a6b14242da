import {
  asTeamId,
  DomainError,
  isDomainError,
  type OwnerId,
  type Team,
  type TeamEvent,
  TeamEventKind,
} from '@agent-teams/core';
import { Repeater } from 'graphql-yoga';
import type { Builder } from './builder.js';
import { type ApiContext, requireViewer } from './context.js';
import type { Refs, TeamEventView } from './refs.js';

/** Events read from the log per round trip while replaying. */
const REPLAY_PAGE = 100;

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

  builder.subscriptionField('teamEvents', (t) =>
    t.field({
      type: refs.TeamEvent,
      description: 'Events of one team in seq order; with afterSeq, first replays what was missed.',
      args: { teamId: t.arg.id({ required: true }), afterSeq: t.arg.int() },
      subscribe: async (_root, args, ctx) => {
        const owner = requireViewer(ctx);
        const team = await ctx.core.teams.get(owner, asTeamId(String(args.teamId)));
        if (team === null) throw new DomainError('NOT_FOUND', 'No such team.');
        return streamTeamEvents(ctx, owner, team, args.afterSeq ?? team.lastEventSeq);
      },
      resolve: (event) => event,
    }),
  );
}

/**
 * Replays the team's log after `afterSeq`, then follows it live.
 *
 * @remarks The log is the only source of events; the hub only says "read again". The wake-up is
 * registered before each read, so an event that commits while a read runs still triggers the
 * next read, and reading from the last delivered seq means no gap and no duplicate. A Repeater
 * (not an async generator) so that unsubscribing ends a subscription that waits for a wake-up.
 */
function streamTeamEvents(ctx: ApiContext, owner: OwnerId, team: Team, afterSeq: number): Repeater<TeamEventView> {
  return new Repeater<TeamEventView>(async (push, stop) => {
    const stopped = new AbortController();
    void stop.then(() => stopped.abort());
    let seq = afterSeq;
    while (!stopped.signal.aborted) {
      const round = new AbortController();
      const onStop = () => round.abort();
      stopped.signal.addEventListener('abort', onStop, { once: true });
      const wake = ctx.eventHub.waitForTeam(team.id, round.signal);
      let events: readonly TeamEvent[];
      try {
        events = await ctx.core.events.read(owner, team.id, seq, REPLAY_PAGE);
      } catch (error) {
        round.abort();
        // The team was deleted: its log is gone, so the stream ends rather than failing.
        if (isDomainError(error, 'NOT_FOUND')) break;
        throw error;
      }
      for (const event of events) {
        if (stopped.signal.aborted) break;
        seq = event.seq;
        ctx.loaders.clearAll();
        const view = await toEventView(ctx, event);
        if (view !== null) await push(view);
      }
      if (events.length < REPLAY_PAGE) await wake;
      round.abort();
      stopped.signal.removeEventListener('abort', onStop);
    }
    stop();
  });
}

/** Loads the entity an event names; null when it no longer exists (nothing to show). */
async function toEventView(ctx: ApiContext, event: TeamEvent): Promise<TeamEventView | null> {
  const team = await ctx.loaders.teams.load(event.teamId);
  if (team === null) return null;
  const base = { seq: event.seq, team };
  switch (event.kind) {
    case TeamEventKind.JOB_CHANGED: {
      const job = event.jobId ? await ctx.loaders.jobs.load(event.jobId) : null;
      return job && { __typename: 'JobChanged', ...base, job };
    }
    case TeamEventKind.RECORD_APPENDED: {
      const [message] = event.recordId ? await ctx.core.load.records([event.recordId]) : [];
      return message ? { __typename: 'RecordAppended', ...base, message } : null;
    }
    case TeamEventKind.MEMBER_CHANGED: {
      const member = event.memberId ? await ctx.loaders.members.load(event.memberId) : null;
      return member && { __typename: 'MemberChanged', ...base, member };
    }
    default:
      return { __typename: 'TeamChanged', ...base };
  }
}
