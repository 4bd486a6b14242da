import { type AgentDefinition, DomainError, ErrorCode, Limits } from '@agent-teams/core';
import { type AgentSpec, agentDefinition, DEMO_AGENTS } from '../fakes/static-catalog.js';

/** Usage as the schema's `Usage` (the fake never calls a model). */
const NO_USAGE = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, cost: 0, calls: 0 } as const;

/** A member of a fake team, in the shape the widget reads. */
export interface FakeMember {
  readonly id: string;
  readonly name: string;
  status: string;
  readonly conversationId: string;
  readonly agent: { readonly id: string; readonly name: string; readonly title: string };
}

/** A request job of a fake team; it finishes at once with {@link WidgetFakeOptions.reply}'s text. */
export interface FakeJob {
  readonly id: string;
  readonly text: string;
  readonly memberId: string;
  readonly createdAt: string;
  status: string;
  result: string | null;
}

/** A team message of the fake (sent by the person: `from` is null). */
export interface FakeMessage {
  readonly id: string;
  readonly text: string;
  readonly delivery: string;
  readonly memberIds: readonly string[];
  readonly createdAt: string;
}

/** A team's budget as `Team.budget` (the fake never spends). */
export interface FakeBudget {
  maxTokens: number | null;
  maxCost: number | null;
  readonly usedTokens: number;
  readonly usedCost: number;
}

/** A team of the fake. */
export interface FakeTeam {
  readonly id: string;
  readonly name: string;
  readonly goal: string;
  status: string;
  readonly members: readonly FakeMember[];
  readonly jobs: FakeJob[];
  /** The seq of the team's last event (the server's `Team.lastEventSeq`). */
  lastEventSeq: number;
  /** The team's events, oldest first, as `teamEvents` replays them after `afterSeq`. */
  readonly events: FakeEvent[];
  readonly messages: FakeMessage[];
  budget: FakeBudget;
}

/** One `teamEvents` event of the fake: what changed, by seq. */
export type FakeEvent =
  | { readonly seq: number; readonly kind: 'TeamChanged' }
  | { readonly seq: number; readonly kind: 'JobChanged'; readonly jobId: string }
  | { readonly seq: number; readonly kind: 'MemberChanged'; readonly memberId: string }
  | { readonly seq: number; readonly kind: 'TaskChanged'; readonly taskId: string };

/** Who hears a fake team's events as they happen; `deleted` when the team goes away. */
export type FakeEventListener = (teamId: string, event: FakeEvent | 'deleted') => void;

/** What {@link createWidgetFake} may change. */
export interface WidgetFakeOptions {
  /** The agent catalog (default: the demo agents). */
  readonly agents?: readonly (AgentDefinition | AgentSpec)[];
  /** The answer a member gives to a request (default: `Done: <text>`). */
  readonly reply?: (text: string, member: FakeMember) => string;
  /** The viewer's id (default `test-owner`). */
  readonly owner?: string;
}

/**
 * The in-memory state behind `agentTeamsHandlers`: teams, members and finished requests, kept
 * as plain objects a test may read or seed. Failures are `DomainError`s with the server's codes.
 */
export interface WidgetFake {
  readonly owner: string;
  readonly agents: readonly AgentDefinition[];
  readonly teams: Map<string, FakeTeam>;
  createTeam(input: { name: string; goal: string; members: readonly { name: string; agentId: string }[] }): FakeTeam;
  deleteTeam(teamId: string): void;
  sendRequest(input: { teamId: string; memberIds: readonly string[]; text: string }): FakeJob[];
  /** Records a person's team message (TEAM_CLOSED in a closed team). */
  sendMessage(input: { teamId: string; memberIds: readonly string[]; text: string; delivery: string }): FakeMessage;
  /** The team, or NOT_FOUND. */
  team(teamId: string): FakeTeam;
  /** The job and its team, or NOT_FOUND. */
  job(jobId: string): { team: FakeTeam; job: FakeJob };
  /** Appends an event to a team's log and tells the listeners (the live `teamEvents`). */
  emit(team: FakeTeam, event: FakeEventInput): FakeEvent;
  /** Hears every team's events from now on; returns the way to stop. */
  onEvent(listener: FakeEventListener): () => void;
}

/** An event before the fake numbers it. */
export type FakeEventInput =
  | { readonly kind: 'TeamChanged' }
  | { readonly kind: 'JobChanged'; readonly jobId: string }
  | { readonly kind: 'MemberChanged'; readonly memberId: string }
  | { readonly kind: 'TaskChanged'; readonly taskId: string };

/** Creates an empty {@link WidgetFake}. */
export function createWidgetFake(options: WidgetFakeOptions = {}): WidgetFake {
  const agents = (options.agents ?? DEMO_AGENTS).map((a) => ('id' in a ? a : agentDefinition(a)));
  const reply = options.reply ?? ((text) => `Done: ${text}`);
  const teams = new Map<string, FakeTeam>();
  const listeners = new Set<FakeEventListener>();
  let next = 0;
  // Sequential ids and timestamps: a test's snapshots stay the same from run to run.
  const id = (prefix: string) => `${prefix}_${++next}`;
  const at = () => new Date(Date.UTC(2026, 0, 1) + next * 1000).toISOString();
  const notFound = (what: string) => new DomainError(ErrorCode.NOT_FOUND, `${what} was not found.`);
  const fake: WidgetFake = {
    owner: options.owner ?? 'test-owner',
    agents,
    teams,
    createTeam(input) {
      const count = input.members.length;
      if (count < Limits.minMembers || count > Limits.maxMembers) {
        throw new DomainError(ErrorCode.MEMBER_COUNT, `Choose ${Limits.minMembers} to ${Limits.maxMembers} members.`);
      }
      const members = input.members.map((m) => {
        const agent = agents.find((a) => a.id === m.agentId);
        if (!agent) throw notFound(`Agent ${m.agentId}`);
        const member = id('member');
        return {
          id: member,
          name: m.name,
          status: 'IDLE',
          conversationId: `conv_${member}`,
          agent: { id: agent.id, name: agent.name, title: agent.title },
        };
      });
      const team: FakeTeam = {
        id: id('team'),
        name: input.name,
        goal: input.goal,
        status: 'READY',
        members,
        jobs: [],
        lastEventSeq: 0,
        events: [],
        messages: [],
        budget: { maxTokens: null, maxCost: null, usedTokens: 0, usedCost: 0 },
      };
      teams.set(team.id, team);
      fake.emit(team, { kind: 'TeamChanged' });
      return team;
    },
    deleteTeam(teamId) {
      if (!teams.delete(teamId)) throw notFound(`Team ${teamId}`);
      for (const listener of listeners) listener(teamId, 'deleted');
    },
    sendRequest(input) {
      const team = fake.team(input.teamId);
      return input.memberIds.map((memberId) => {
        const member = team.members.find((m) => m.id === memberId);
        if (!member) throw notFound(`Member ${memberId}`);
        const job: FakeJob = {
          id: id('job'),
          text: input.text,
          memberId,
          createdAt: at(),
          status: 'COMPLETED',
          result: reply(input.text, member),
        };
        team.jobs.push(job);
        fake.emit(team, { kind: 'JobChanged', jobId: job.id });
        return job;
      });
    },
    sendMessage(input) {
      const team = fake.team(input.teamId);
      if (team.status === 'CLOSED') throw new DomainError(ErrorCode.TEAM_CLOSED, 'The team is closed.');
      for (const memberId of input.memberIds) {
        if (!team.members.some((m) => m.id === memberId)) throw notFound(`Member ${memberId}`);
      }
      const message: FakeMessage = { id: id('message'), createdAt: at(), ...input };
      team.messages.push(message);
      return message;
    },
    team(teamId) {
      const team = teams.get(teamId);
      if (!team) throw notFound(`Team ${teamId}`);
      return team;
    },
    job(jobId) {
      for (const team of teams.values()) {
        const job = team.jobs.find((j) => j.id === jobId);
        if (job) return { team, job };
      }
      throw notFound(`Job ${jobId}`);
    },
    emit(team, input) {
      team.lastEventSeq += 1;
      const event = { ...input, seq: team.lastEventSeq } as FakeEvent;
      team.events.push(event);
      for (const listener of listeners) listener(team.id, event);
      return event;
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return fake;
}

/** A job in the shape of the widget's `JOB_FIELDS` (a request from a person). */
export function jobView(team: FakeTeam, job: FakeJob) {
  const member = team.members.find((m) => m.id === job.memberId);
  return {
    __typename: 'Job',
    id: job.id,
    kind: 'REQUEST',
    status: job.status,
    text: job.text,
    error: null,
    errorCode: null,
    createdAt: job.createdAt,
    conversationId: member?.conversationId ?? null,
    member: member ? { id: member.id, name: member.name, conversationId: member.conversationId } : null,
    requester: { member: null },
    parent: null,
    input: null,
    usage: NO_USAGE,
    result: job.result === null ? null : { text: job.result },
    receipt: null,
  };
}

/** A member in the shape of the widget's `Team` query (no roles, no lead in the fake). */
export function memberView(member: FakeMember) {
  return { ...member, role: null, isLead: false, usage: NO_USAGE };
}

/** A message in the shape of the widget's `MESSAGE_FIELDS`. */
export function messageView(team: FakeTeam, message: FakeMessage) {
  const to = message.memberIds.map((id) => ({ name: team.members.find((m) => m.id === id)?.name ?? id }));
  return { __typename: 'TeamMessage', ...message, from: null, to };
}

export { NO_USAGE };
