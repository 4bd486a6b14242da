import { type Core, DomainError, type JobId, type OwnerId } from '@agent-teams/core';
import type { EventHub } from '../server/event-hub.js';
import type { ProgressSource } from '../server/progress-source.js';
import type { TeamFeeds } from '../server/team-feed.js';
import { createLoaders, type Loaders } from './loaders.js';
import type { TeamEventView } from './refs.js';

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
  readonly teamFeeds: TeamFeeds<TeamEventView>;
  /**
   * The job whose member-run token the request carried (`invokeTeamTool`), or null for no such
   * token. Absent when the server issues no member-run tokens.
   */
  readonly memberRun?: () => Promise<JobId | null>;
}

/** Builds the context of one operation (one HTTP request or one WebSocket subscribe). */
export function createApiContext(deps: Omit<ApiContext, 'loaders'>): ApiContext {
  return { ...deps, loaders: createLoaders(deps.core) };
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

/** Throws the error of a field whose issue has not landed yet. */
export function notAvailableYet(what: string, issue: string): never {
  throw new DomainError('NOT_AVAILABLE_YET', `${what} arrives with the ${issue} issue.`);
}
