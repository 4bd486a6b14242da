import { DomainError, ErrorCode } from '@agent-teams/core';
import {
  type GraphQLHandler,
  type GraphQLQuery,
  type GraphQLResponseBody,
  graphql,
  HttpResponse,
  type WebSocketHandler,
} from 'msw';
import { liveHandler } from './live-handler.js';
import { TASK_ANSWERS, TASK_MUTATIONS } from './task-board-fake.js';
import {
  createWidgetFake,
  jobView,
  memberView,
  messageView,
  NO_USAGE,
  type WidgetFake,
  type WidgetFakeOptions,
} from './widget-fake.js';

/** What {@link agentTeamsHandlers} may change. */
export interface AgentTeamsHandlersOptions extends WidgetFakeOptions {
  /** Answer only this GraphQL endpoint (default: any URL, by operation name). */
  readonly endpoint?: string;
  /** Accept only this bearer token; others answer UNAUTHENTICATED (default: any token). */
  readonly token?: string;
  /** The state to answer from (default: a new empty fake); pass one to seed or inspect it. */
  readonly fake?: WidgetFake;
}

/** The variables the widget's operations send (each uses `id` or `input`). */
interface Variables {
  readonly id: string;
  readonly input: {
    readonly teamId: string;
    readonly jobId: string;
    readonly name: string;
    readonly goal: string;
    readonly text: string;
    readonly memberIds: readonly string[];
    readonly delivery: string;
    readonly maxTokens?: number | null;
    readonly maxCost?: number | null;
    readonly members: readonly { name: string; agentId: string }[];
  };
}
type Answer = (fake: WidgetFake, variables: Variables) => Record<string, unknown>;

/** The team of `id` as the widget's `Team` query reads it, or null (no existence leak). */
function teamOrNull(fake: WidgetFake, id: string) {
  return fake.teams.get(id) ?? null;
}

/** The widget's queries and mutations by operation name (see `packages/widget/src/api.ts`). */
const ANSWERS: Readonly<Record<string, Answer>> = {
  Teams: (fake) => ({
    viewer: {
      id: fake.owner,
      teams: { edges: [...fake.teams.values()].reverse().map((t) => ({ node: { id: t.id, name: t.name } })) },
    },
  }),
  Agents: (fake) => ({
    agents: {
      edges: fake.agents.map((a) => ({ node: { id: a.id, name: a.name, title: a.title, description: a.description } })),
    },
  }),
  Team: (fake, v) => {
    const team = teamOrNull(fake, v.id);
    return { team: team && { ...team, jobs: undefined, usage: NO_USAGE, members: team.members.map(memberView) } };
  },
  Usage: (fake, v) => {
    const team = teamOrNull(fake, v.id);
    return {
      team: team && { id: team.id, usage: NO_USAGE, members: team.members.map((m) => ({ id: m.id, usage: NO_USAGE })) },
    };
  },
  Activity: (fake, v) => {
    const team = teamOrNull(fake, v.id);
    if (!team) return { team: null };
    const edges = [...team.jobs].reverse().map((job) => ({ node: jobView(team, job) }));
    return {
      team: {
        id: team.id,
        status: team.status,
        lastEventSeq: team.lastEventSeq,
        activity: {
          __typename: 'ActivityPage',
          revision: String(team.jobs.length),
          jobs: { pageInfo: { hasNextPage: false, endCursor: null }, edges },
        },
        members: team.members.map((m) => ({ id: m.id, status: m.status })),
        // The fake's requests finish at once: no job ever waits in wait_for_change.
        waiting: { edges: [] },
      },
    };
  },
  Messages: (fake, v) => {
    const team = teamOrNull(fake, v.id);
    const edges = team?.messages.map((message) => ({ node: messageView(team, message) }));
    return { team: team && { id: team.id, messages: { pageInfo: { hasNextPage: false, endCursor: null }, edges } } };
  },
  Budget: (fake, v) => {
    const team = teamOrNull(fake, v.id);
    return { team: team && { id: team.id, budget: team.budget } };
  },
  Conversation: (fake, v) => {
    for (const team of fake.teams.values()) {
      const member = team.members.find((m) => m.id === v.id);
      if (!member) continue;
      const edges = team.jobs
        .filter((job) => job.memberId === member.id)
        .flatMap((job) => [
          { node: { id: `${job.id}_user`, role: 'USER', text: job.text, toolName: null, createdAt: job.createdAt } },
          {
            node: {
              id: `${job.id}_agent`,
              role: 'ASSISTANT',
              text: job.result ?? '',
              toolName: null,
              createdAt: job.createdAt,
            },
          },
        ]);
      return {
        node: {
          __typename: 'Member',
          id: member.id,
          conversation: { pageInfo: { hasNextPage: false, endCursor: null }, edges },
        },
      };
    }
    return { node: null };
  },
  Create: (fake, v) => {
    const team = fake.createTeam(v.input);
    return { createTeam: { team: { id: team.id, name: team.name } } };
  },
  Delete: (fake, v) => {
    fake.deleteTeam(v.input.teamId);
    return { deleteTeam: { deletedTeamId: v.input.teamId } };
  },
  Reconnect: (fake, v) => {
    const team = fake.team(v.input.teamId);
    team.status = 'READY';
    fake.emit(team, { kind: 'TeamChanged' });
    return { reconnectTeam: { team: { id: team.id, status: team.status } } };
  },
  SendMessage: (fake, v) => {
    const team = fake.team(v.input.teamId);
    return { sendMessage: { message: messageView(team, fake.sendMessage(v.input)) } };
  },
  SetBudget: (fake, v) => {
    const team = fake.team(v.input.teamId);
    team.budget = { ...team.budget, maxTokens: v.input.maxTokens ?? null, maxCost: v.input.maxCost ?? null };
    return { setTeamBudget: { team: { id: team.id, budget: team.budget } } };
  },
  Send: (fake, v) => ({ sendRequest: { jobs: fake.sendRequest(v.input).map((job) => ({ id: job.id })) } }),
  // Requests of the fake finish at once, so there is never a question to answer or a run to stop.
  Respond: (fake, v) => {
    const { job } = fake.job(v.input.jobId);
    return { respond: { job: { id: job.id, status: job.status } } };
  },
  Cancel: (fake, v) => {
    const { job } = fake.job(v.input.jobId);
    return { cancelJob: { job: { id: job.id, status: job.status } } };
  },
};

/** A GraphQL response body, typed as msw's GraphQL handlers expect it. */
const json = (body: GraphQLResponseBody<GraphQLQuery>) => HttpResponse.json<GraphQLResponseBody<GraphQLQuery>>(body);

const MUTATIONS = new Set([
  'Create',
  'Delete',
  'Reconnect',
  'Send',
  'Respond',
  'Cancel',
  'SendMessage',
  'SetBudget',
  ...TASK_MUTATIONS,
]);

/** A GraphQL error answer with the contract's `extensions.code`, as the server masks it. */
function errorAnswer(code: string, message: string, details?: Readonly<Record<string, unknown>>) {
  return json({ data: null, errors: [{ message, extensions: { ...details, code } }] });
}

/**
 * msw handlers answering the widget's GraphQL operations from an in-memory fake
 * ({@link createWidgetFake}), for a host's front-end tests without a server: its queries and
 * mutations over HTTP, and its subscriptions over the WebSocket (`graphql-transport-ws`).
 *
 * @remarks Requests finish at once (COMPLETED, with `reply`'s text) and `teamEvents` streams what
 * the fake's mutations change (replaying events after `afterSeq`, like the server), so a widget
 * sees a request it sent, or one a test makes with `fake.sendRequest`, arrive live. Unknown
 * operations fall through to the host's other handlers; sockets that do not ask for the graphql-ws
 * subprotocol pass through to the network.
 */
export function agentTeamsHandlers(options: AgentTeamsHandlersOptions = {}): (GraphQLHandler | WebSocketHandler)[] {
  const fake = options.fake ?? createWidgetFake(options);
  const api = options.endpoint === undefined ? graphql : graphql.link(options.endpoint);
  // The task board's operations (task-board-fake.ts) read their own variables.
  const answers = { ...ANSWERS, ...(TASK_ANSWERS as unknown as Record<string, Answer>) };
  const operations = Object.entries(answers).map(([name, answer]) =>
    (MUTATIONS.has(name) ? api.mutation : api.query)(name, ({ request, variables }) => {
      if (options.token !== undefined && request.headers.get('authorization') !== `Bearer ${options.token}`) {
        return errorAnswer(ErrorCode.UNAUTHENTICATED, 'Authentication required.');
      }
      try {
        return json({ data: answer(fake, variables as unknown as Variables) });
      } catch (error) {
        if (error instanceof DomainError)
          return errorAnswer(error.code, error.message, error.details as Readonly<Record<string, unknown>>);
        throw error;
      }
    }),
  );
  const live = liveHandler(fake, {
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    ...(options.token === undefined ? {} : { token: options.token }),
  });
  return [...operations, live];
}
