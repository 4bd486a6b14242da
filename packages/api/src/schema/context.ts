import { type Core, DomainError, type JobId, type OwnerId, type TeamId } from '@agent-teams/core';
import type { EventHub } from '../events/event-hub.js';
import type { ProgressSource } from '../events/progress-hub.js';
import { createLoaders, type Loaders } from './loaders.js';
import type { TeamEventView } from './views.js';

/**
 * What every resolver receives: the core's use cases, the authenticated owner (or null) and the
 * request's batch loaders.
 */
export interface ApiContext {
  readonly core: Core;
  /** The authenticated owner; null when the request carried no or an unknown token. */
  readonly viewer: OwnerId | null;
  readonly loaders: Loaders;
  /** Wakes subscriptions when events commit. */
  readonly eventHub: EventHub;
  /** Runtime progress notices for `jobProgress`. */
  readonly progress: ProgressSource;
  /** Shared followers of team event logs (`teamEvents`). */
  readonly teamFeeds: TeamEventFeeds;
  /**
   * The job whose member-run token the request carried (`invokeTeamTool`), or null for no such
   * token. Absent when the server issues no member-run tokens.
   */
  readonly memberRun?: () => Promise<JobId | null>;
}

/**
 * What `teamEvents` follows: the server's shared, in-order followers of team event logs
 * (`server/team-feed.ts`). Declared here so the schema depends on nothing of the server.
 */
export interface TeamEventFeeds {
  /** Follows a team's log after `afterSeq` (ownership and expiry already checked). */
  follow(owner: OwnerId, teamId: TeamId, afterSeq: number, headSeq: number): AsyncIterableIterator<TeamEventView>;
}

/** Builds the context of one operation (one HTTP request or one WebSocket subscribe). */
export function createApiContext(deps: Omit<ApiContext, 'loaders'>): ApiContext {
  // Not `{ ...deps, loaders }`: a literal that begins with a spread and adds keys gets a hidden
  // class per object in optimized code (see `UNADMITTED` in the core), once per request here.
  return Object.assign({}, deps, { loaders: createLoaders(deps.core) });
}

/**
 * The authenticated owner, or a `UNAUTHENTICATED` error.
 *
 * @remarks Every root field calls this first, so an anonymous request learns nothing, not even
 * whether an id exists.
 */
export function requireViewer(ctx: ApiContext): OwnerId {
  if (ctx.viewer === null) {
    throw new DomainError('UNAUTHENTICATED', 'A valid bearer token is required.');
  }
  return ctx.viewer;
}
