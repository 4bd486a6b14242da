// The server subpath of @agent-teams/testkit: the real server for a host's CI. It imports
// @agent-teams/api (an optional peer), so hosts that want only the fixtures never load it.

export type { AgentSpec } from '../fakes/static-catalog.js';
export type { TestServer, TestServerOptions } from './start-test-server.js';
export { startTestServer, TEST_SERVER_OWNER } from './start-test-server.js';
