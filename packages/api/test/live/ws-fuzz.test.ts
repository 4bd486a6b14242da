import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, sendRequest, type TeamFixture } from '../graphql/fixtures.js';
import { codes, createGraphqlStack, type GraphqlStack, TOKENS } from '../graphql/graphql-stack.js';
import { type ClientPool, openLivePool, type RawSocket, TEAM_EVENTS, until } from './live-clients.js';
import { COMMANDS } from './ws-fuzz-commands.js';
import { expectRunning, FUZZ_STATS, type FuzzModel, FuzzWorld, modelRunning } from './ws-fuzz-world.js';

/**
 * Model-based fuzzer of our graphql-transport-ws server over a real socket: random sequences of
 * valid and invalid messages on up to three sockets of one owner (ids of every length and
 * alphabet, reused ids, unknown and server-only types, binary and invalid UTF-8 frames, messages
 * over the size limit, init/subscribe/complete out of order, cost bombs). Each command checks
 * what the protocol says must happen (ack, close code, refusal); after each sequence the server
 * still serves HTTP, another owner's socket still receives its events, the owner's running count
 * matched the model and returns to zero once its sockets are gone, and nothing was logged as a
 * handler failure.
 *
 * Runs: `AGENT_TEAMS_WS_FUZZ_RUNS` (20 in `pnpm test`; `pnpm chaos` runs 5,000), seed
 * `AGENT_TEAMS_WS_FUZZ_SEED`, figures to `AGENT_TEAMS_WS_FUZZ_STATS_FILE`.
 */
const RUNS = Number(process.env.AGENT_TEAMS_WS_FUZZ_RUNS ?? 20);
const SEED = process.env.AGENT_TEAMS_WS_FUZZ_SEED ? Number(process.env.AGENT_TEAMS_WS_FUZZ_SEED) : undefined;
/** Requests an observed team takes before the observer moves to a new one (a team holds 100). */
const REQUESTS_PER_TEAM = 95;
const OBSERVER_TOKENS = [TOKENS.bob, 'tok-obs-1', 'tok-obs-2', 'tok-obs-3', 'tok-obs-4'];

let stack: GraphqlStack;
let pool: ClientPool;
let aliceTeam: TeamFixture;

/** Another owner's socket following one of its teams; moves on when the team fills up. */
const observer = {
  socket: null as RawSocket | null,
  team: null as TeamFixture | null,
  token: 0,
  teams: 0,
  requests: 0,
  subscription: 0,
};

async function observe(): Promise<void> {
  if (observer.team === null || observer.requests >= REQUESTS_PER_TEAM) {
    if (observer.teams === 20) {
      observer.token += 1;
      observer.teams = 0;
    }
    const token = OBSERVER_TOKENS[observer.token] as string;
    observer.team = await createTeam(stack, token);
    observer.teams += 1;
    observer.requests = 0;
    observer.socket?.socket.terminate();
    observer.socket = await pool.raw();
    await observer.socket.init(token);
    observer.subscription += 1;
    const id = `watch-${observer.subscription}`;
    // From seq 0: an event committed before the subscription is registered is replayed, not missed.
    const variables = { teamId: observer.team.id, afterSeq: 0 };
    observer.socket.send({ id, type: 'subscribe', payload: { query: TEAM_EVENTS, variables } });
  }
  const socket = observer.socket as RawSocket;
  const before = socket.frames.length;
  const team = observer.team;
  await sendRequest(stack, team.id, [team.members[0]?.id ?? ''], 'ping', OBSERVER_TOKENS[observer.token]);
  observer.requests += 1;
  await until(() => socket.frames.length > before, "the other owner's socket to get its event");
}

beforeAll(async () => {
  const tokens = new Map<string, string>([
    [TOKENS.alice, 'alice'],
    ...OBSERVER_TOKENS.map((token, i): [string, string] => [token, `observer-${i}`]),
  ]);
  stack = await createGraphqlStack({ scheduler: false, tokens, live: { initTimeoutMs: 2_000 } });
  ({ pool } = await openLivePool(stack.server));
  aliceTeam = await createTeam(stack, TOKENS.alice);
});
afterAll(async () => {
  observer.socket?.socket.terminate();
  await pool.dispose();
  await stack.close();
});

describe('the graphql-transport-ws server under random message sequences', () => {
  it(
    `keeps serving, keeps other sockets fed and counts right (${RUNS} sequences)`,
    async () => {
      const started = Date.now();
      await fc.assert(
        fc.asyncProperty(fc.commands(COMMANDS, { maxCommands: 40, size: 'medium' }), async (commands) => {
          const model: FuzzModel = { sockets: [null, null, null] };
          const world = new FuzzWorld(stack, pool, aliceTeam.id);
          FUZZ_STATS.sequences += 1;
          try {
            await fc.asyncModelRun(() => ({ model, real: world }), commands);
            FUZZ_STATS.commands += [...commands].length;
            await expectRunning(stack, 'alice', modelRunning(model));
          } finally {
            await world.closeAll();
          }
          await expectRunning(stack, 'alice', 0);
          expect(codes(await stack.gql('{ viewer { id } }', {}, TOKENS.alice))).toEqual([]);
          await observe();
          const failures = stack.logger.entries.filter((entry) => entry.level === 'error');
          expect(failures.map((entry) => entry.message)).toEqual([]);
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      const file = process.env.AGENT_TEAMS_WS_FUZZ_STATS_FILE;
      if (file) writeFileSync(file, JSON.stringify({ ...FUZZ_STATS, durationMs: Date.now() - started }));
    },
    30_000 + RUNS * 250,
  );
});
