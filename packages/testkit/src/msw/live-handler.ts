import { ErrorCode } from '@agent-teams/core';
import { type WebSocketHandler, ws } from 'msw';
import { fakeTaskView } from './task-board-fake.js';
import { jobView, type WidgetFake } from './widget-fake.js';

/** The subprotocol the widget (and every graphql-ws client) asks for. */
export const GRAPHQL_WS_PROTOCOL = 'graphql-transport-ws';

/** Close codes of graphql-ws's server, which the widget tells apart (see the widget's ws-client). */
export const LiveClose = {
  badRequest: 4400,
  forbidden: 4403,
  initTimeout: 4408,
  duplicateId: 4409,
  unauthorized: 4401,
  tooManyInits: 4429,
} as const;

/** What {@link liveHandler} needs from `agentTeamsHandlers`' options. */
export interface LiveHandlerOptions {
  /** The GraphQL endpoint over http(s); the socket is the same URL over ws(s). Absent: any URL. */
  readonly endpoint?: string;
  /** Accept only this bearer token at `connection_init` (4403 otherwise). */
  readonly token?: string;
}

interface ClientMessage {
  readonly type?: unknown;
  readonly id?: unknown;
  readonly payload?: {
    readonly query?: unknown;
    readonly variables?: Record<string, unknown> | null;
    readonly authorization?: unknown;
  };
}

/** `ws://host/graphql` for `http://host/graphql` (relative endpoints cannot be matched: any URL then). */
function socketPattern(endpoint: string | undefined): string | RegExp {
  if (endpoint === undefined || !/^https?:\/\//.test(endpoint)) return /.*/;
  return endpoint.replace(/^http/, 'ws');
}

const offers = (protocols: string | string[] | undefined) =>
  protocols === GRAPHQL_WS_PROTOCOL || (Array.isArray(protocols) && protocols.includes(GRAPHQL_WS_PROTOCOL));

/**
 * An msw WebSocket handler speaking `graphql-transport-ws` like the server: `teamEvents` replays
 * the fake's events after `afterSeq` and then streams new ones as the fake's mutations make them;
 * `jobProgress` sends the job's final state and completes (the fake's requests finish when sent).
 *
 * @remarks A socket that does not ask for the graphql-ws subprotocol is passed through to the real
 * network untouched, so a host's other WebSockets keep working when no endpoint is given.
 */
export function liveHandler(fake: WidgetFake, options: LiveHandlerOptions): WebSocketHandler {
  return ws.link(socketPattern(options.endpoint)).addEventListener('connection', ({ client, server, info }) => {
    if (!offers(info.protocols)) {
      server.connect();
      return;
    }
    let acknowledged = false;
    const active = new Map<string, () => void>();
    const send = (message: Record<string, unknown>) => client.send(JSON.stringify(message));
    const close = (code: number, reason: string) => {
      for (const stop of active.values()) stop();
      active.clear();
      client.close(code, reason);
    };
    const fail = (id: string, code: string, message: string) => {
      active.delete(id);
      send({ id, type: 'error', payload: [{ message, extensions: { code } }] });
    };

    const subscribe = (id: string, query: string, variables: Record<string, unknown>) => {
      if (/\bjobProgress\b/.test(query)) {
        // As the server: the fake's requests finish when sent, so one payload shows the job's
        // final status (no text, no tool call), then the stream completes.
        const jobId = String(variables.jobId);
        const owner = [...fake.teams.values()].find((t) => t.jobs.some((j) => j.id === jobId));
        const job = owner?.jobs.find((j) => j.id === jobId);
        if (!owner || !job) return fail(id, ErrorCode.NOT_FOUND, 'No such job.');
        const jobProgress = { job: jobView(owner, job), textDelta: null, toolCall: null };
        send({ id, type: 'next', payload: { data: { jobProgress } } });
        send({ id, type: 'complete' });
        return;
      }
      if (!/\bteamEvents\b/.test(query)) {
        fail(id, 'GRAPHQL_VALIDATION_FAILED', 'agentTeamsHandlers answers teamEvents and jobProgress only.');
        return;
      }
      const team = fake.teams.get(String(variables.teamId));
      if (!team) return fail(id, ErrorCode.NOT_FOUND, 'Team was not found.');
      const eventData = (event: (typeof team.events)[number]) => {
        const base = { seq: event.seq, team: { id: team.id, status: team.status } };
        if (event.kind === 'JobChanged') {
          const job = team.jobs.find((j) => j.id === event.jobId);
          return { __typename: 'JobChanged', ...base, job: job ? jobView(team, job) : null };
        }
        if (event.kind === 'MemberChanged') {
          const member = team.members.find((m) => m.id === event.memberId);
          return { __typename: 'MemberChanged', ...base, member: member && { id: member.id, status: member.status } };
        }
        if (event.kind === 'TaskChanged') {
          return { __typename: 'TaskChanged', ...base, reason: null, task: fakeTaskView(fake, team, event.taskId) };
        }
        return { __typename: 'TeamChanged', ...base };
      };
      const next = (event: (typeof team.events)[number]) =>
        send({ id, type: 'next', payload: { data: { teamEvents: eventData(event) } } });
      const afterSeq = typeof variables.afterSeq === 'number' ? variables.afterSeq : team.lastEventSeq;
      for (const event of team.events) if (event.seq > afterSeq) next(event);
      const stop = fake.onEvent((teamId, event) => {
        if (teamId !== team.id) return;
        if (event === 'deleted') {
          active.get(id)?.();
          active.delete(id);
          send({ id, type: 'complete' });
        } else next(event);
      });
      active.set(id, stop);
    };

    client.addEventListener('message', (event) => {
      let message: ClientMessage;
      try {
        message = JSON.parse(String(event.data)) as ClientMessage;
      } catch {
        return close(LiveClose.badRequest, 'Invalid message received');
      }
      // Valid JSON that is not an object (`null`, `5`, `[]`) is as invalid as bytes that do not parse.
      if (message === null || typeof message !== 'object' || Array.isArray(message)) {
        return close(LiveClose.badRequest, 'Invalid message received');
      }
      if (message.type === 'connection_init') {
        if (acknowledged) return close(LiveClose.tooManyInits, 'Too many initialisation requests');
        const auth = message.payload?.authorization;
        if (options.token !== undefined && auth !== `Bearer ${options.token}`)
          return close(LiveClose.forbidden, 'Forbidden');
        acknowledged = true;
        return send({ type: 'connection_ack' });
      }
      if (message.type === 'ping') return send({ type: 'pong' });
      if (message.type === 'pong') return;
      if (!acknowledged) return close(LiveClose.unauthorized, 'Unauthorized');
      if (typeof message.id !== 'string') return close(LiveClose.badRequest, 'Invalid message received');
      if (message.type === 'complete') {
        active.get(message.id)?.();
        active.delete(message.id);
        return;
      }
      if (message.type !== 'subscribe' || typeof message.payload?.query !== 'string') {
        return close(LiveClose.badRequest, 'Invalid message received');
      }
      if (active.has(message.id)) return close(LiveClose.duplicateId, `Subscriber for ${message.id} already exists`);
      subscribe(message.id, message.payload.query, message.payload.variables ?? {});
    });
    client.addEventListener('close', () => {
      for (const stop of active.values()) stop();
      active.clear();
    });
  });
}
