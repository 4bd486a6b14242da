import type { Core, Logger } from '@agent-teams/core';
import type { MemberRunTokens } from '../adapters/member-run-tokens.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { EventHub } from '../events/event-hub.js';

/** What every endpoint of the server (GraphQL, MCP, A2A) works with and authenticates by. */
export interface EdgeDeps {
  readonly core: Core;
  /** Resolves an `Authorization` value (`Bearer <token>`: static or host-signed) to its owner. */
  readonly auth: Authenticator;
  /**
   * Resolves member-run tokens (`invokeTeamTool`, the MCP member tools); without it they are
   * refused.
   */
  readonly memberRunTokens?: Pick<MemberRunTokens, 'jobOf'>;
  readonly logger: Logger;
  /** Wakes an outside caller's held `wait_for_change` (see `events/outside-wait.ts`). */
  readonly eventHub: EventHub;
}

/** What an interop endpoint (MCP, A2A) adds: the server's body limit and version. */
export interface InteropDeps extends EdgeDeps {
  /** The largest request body read (bytes): the server's one body limit. */
  readonly maxBodyBytes: number;
  /** This server's version, as the protocol's handshake or card names it. */
  readonly version: string;
}
