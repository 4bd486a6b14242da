import type { Logger, OwnerId } from '@agent-teams/core';
import type { DocumentNode, GraphQLError, GraphQLSchema } from 'graphql';
import type { Authenticator } from '../../auth/authenticator.js';
import type { OperationGuard } from '../operation-guard.js';
import type { OwnerSlots } from '../owner-slots.js';
import type { FrameWriter } from './frame-writer.js';
import type { LiveOptions } from './live-options.js';
import type { Operation } from './operation-slots.js';
import type { SharedResults } from './shared-results.js';

/** Parses and validates a document exactly as HTTP does (Yoga's envelop, request limits included). */
export type PrepareDocument = (
  query: string,
) => { readonly schema: GraphQLSchema; readonly document: DocumentNode } | { readonly errors: readonly GraphQLError[] };

/** What every connection shares: server-wide state and the ways to authenticate and execute. */
export interface LiveConnectionDeps {
  readonly options: LiveOptions;
  readonly shared: SharedResults;
  /** Running operations per owner, across sockets. */
  readonly ownerCounts: Map<OwnerId, number>;
  /** Authenticated sockets per owner, across the server. */
  readonly ownerSockets: OwnerSlots;
  /** Resolves `connection_init` credentials, and re-checks them at delivery. */
  readonly auth: Authenticator;
  readonly prepare: PrepareDocument;
  /** A fresh resolver context for `owner` (new loaders: current state). */
  readonly createContext: (owner: OwnerId) => unknown;
  /** The one error mapping of the server (DomainError → extensions.code, others masked). */
  readonly maskError: (error: unknown) => GraphQLError;
  /** The checks every operation passes after validation (rate limit, storable input, cost), as over HTTP. */
  readonly guard: OperationGuard;
  readonly logger: Logger;
}

/** What a running operation needs from its connection. */
export interface OperationHost {
  readonly deps: LiveConnectionDeps;
  readonly writer: FrameWriter;
  /** Whether the socket's credentials still name its owner; closes the socket with 4403 if not. */
  authorized(): boolean;
  /** Ends `operation`: stops its source and frees its slot (idempotent). */
  finish(operation: Operation): void;
}
