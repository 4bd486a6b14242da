import type { Clock } from '@agent-teams/core';
import type { MemoryLogger } from '@agent-teams/testkit';
import { FakeClock } from '@agent-teams/testkit';
import type { App } from '../../src/app/create-app.js';
import type { JwtSettings } from '../../src/auth/jwt-key.js';
import { CREATE_TEAM, teamInput } from '../graphql/fixtures.js';
import { ClientPool } from '../live/live-clients.js';
import {
  type HostKeyPair,
  type HostTokenClaims,
  hostJwtSettings,
  makeHostKeys,
  signHostToken,
} from '../support/host-tokens.js';
import { type JwksServer, startJwksServer } from '../support/jwks-server.js';
import { openTestApp } from '../support/test-app.js';

/** A listening application that accepts a host's ES256 tokens from its JWKS, beside the static test tokens. */
export interface HostTokenApp {
  readonly app: App & { readonly logger: MemoryLogger };
  readonly url: string;
  readonly pool: ClientPool;
  /** The host's signing key and its key-set endpoint (a real loopback server). */
  readonly host: HostKeyPair;
  readonly jwks: JwksServer;
  /** The application's clock (a {@link FakeClock} unless the system clock was asked for). */
  readonly clock: Clock;
  /** Signs a token at the application's current time (default `sub`: `user-1`). */
  token(claims?: HostTokenClaims, key?: HostKeyPair): Promise<string>;
  /** Runs GraphQL over real HTTP with `token` (null: no Authorization header). */
  gql(query: string, variables: Record<string, unknown>, token: string | null): Promise<GqlAnswer>;
  /** Creates a team as `token`'s owner and returns its id and member ids. */
  createTeam(token: string): Promise<{ id: string; members: { id: string }[] }>;
  close(): Promise<void>;
}

/** A GraphQL answer over HTTP: status and the parsed body. */
export interface GqlAnswer {
  readonly status: number;
  readonly body: {
    readonly data?: Record<string, unknown> | null;
    readonly errors?: readonly { message: string; extensions?: Record<string, unknown> }[];
  };
}

/**
 * Opens the application `createApp` builds with `auth.jwt` pointing at a JWKS served on
 * loopback. `clock: 'system'` runs on real time (expiry timers); otherwise a fake clock lets a
 * test step past an expiry or the JWKS cooldown, and the scheduler stays off.
 */
export async function openHostTokenApp(
  opts: { clock?: 'system' | 'fake'; settings?: Partial<Omit<JwtSettings, 'key'>> } = {},
): Promise<HostTokenApp> {
  const host = await makeHostKeys('ES256', 'host-key-1');
  const jwks = await startJwksServer([host.publicJwk]);
  const fake = opts.clock === 'system' ? null : new FakeClock(Date.now());
  const app = await openTestApp({
    jwt: hostJwtSettings({ kind: 'jwks', url: jwks.url }, opts.settings),
    ...(fake ? { clock: fake, scheduler: false } : {}),
  });
  const { url } = await app.listen(0, '127.0.0.1');
  const pool = new ClientPool(`${url.replace('http', 'ws')}/graphql`);
  const clock = fake ?? { nowMs: () => Date.now() };
  const gql: HostTokenApp['gql'] = async (query, variables, token) => {
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, body: (await response.json()) as GqlAnswer['body'] };
  };
  return {
    app,
    url,
    pool,
    host,
    jwks,
    clock,
    token: (claims = {}, key = host) => signHostToken(key, claims, clock.nowMs()),
    gql,
    async createTeam(token) {
      const { body } = await gql(CREATE_TEAM, { input: teamInput() }, token);
      const team = (body.data?.createTeam as { team?: { id: string; members: { id: string }[] } } | undefined)?.team;
      if (!team) throw new Error(`createTeam failed: ${JSON.stringify(body.errors)}`);
      return team;
    },
    async close() {
      await pool.dispose();
      await app.close();
      await jwks.close();
    },
  };
}
