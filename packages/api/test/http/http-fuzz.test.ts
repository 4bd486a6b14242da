import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphqlStack, type GraphqlStack, TOKENS } from '../graphql/graphql-stack.js';
import { send } from './http-client.js';
import { type FuzzRequest, requests } from './http-fuzz-requests.js';

/**
 * Fuzzer of the HTTP endpoint on a real server: random methods, paths, content types, accept
 * headers, tokens, origins and bodies (valid operations, depth/alias/directive/token/cost bombs,
 * malformed cursors and sizes, hostile strings, batches, invalid JSON, raw bytes, deeply nested
 * JSON, bodies around the size limit, chunked or not). Every answer is a 2xx/4xx, never a 5xx;
 * a JSON answer never carries a stack, a file path, SQL, a dependency name or a masked
 * "Unexpected error." (each of those would be a defect); and after every sequence another owner
 * is still served.
 *
 * Runs: `AGENT_TEAMS_HTTP_FUZZ_RUNS` (30 sequences of up to 8 requests in `pnpm test`; `pnpm chaos`
 * runs 5,000), seed `AGENT_TEAMS_HTTP_FUZZ_SEED`, figures to `AGENT_TEAMS_HTTP_FUZZ_STATS_FILE`.
 */
const RUNS = Number(process.env.AGENT_TEAMS_HTTP_FUZZ_RUNS ?? 30);
const SEED = process.env.AGENT_TEAMS_HTTP_FUZZ_SEED ? Number(process.env.AGENT_TEAMS_HTTP_FUZZ_SEED) : undefined;
const STATS = { sequences: 0, requests: 0, statuses: {} as Record<string, number> };

/** What no answer may reveal: stacks, paths, SQL, driver and dependency names. */
const LEAKS = [
  /\n\s+at\s/,
  /node_modules|\/work\/|\.ts:\d|file:\/\//,
  /\b(SELECT|INSERT INTO|UPDATE \w+ SET)\b|SQLITE_|sqlite3|PostgreSQL|relation "|syntax error at or near/,
  /yoga|whatwg|envelop|kysely|better-sqlite|graphql-armor|pothos|escape\.tech/i,
  /Unexpected error\./,
];

let stack: GraphqlStack;
let base: string;

beforeAll(async () => {
  stack = await createGraphqlStack({ scheduler: false, maxBodyBytes: 64 * 1024 });
  ({ url: base } = await stack.server.listen(0, '127.0.0.1'));
});
afterAll(async () => stack.close());

async function check(request: FuzzRequest): Promise<void> {
  const body = request.body ?? undefined;
  const chunks = request.chunked && body ? [body.subarray(0, 7), body.subarray(7)] : undefined;
  const answer = await send(`${base}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(chunks ? { chunks } : { body }),
  });
  STATS.requests += 1;
  STATS.statuses[answer.status] = (STATS.statuses[answer.status] ?? 0) + 1;
  expect(answer.status).toBeGreaterThanOrEqual(200);
  expect(answer.status).toBeLessThan(500);
  const type = String(answer.headers['content-type'] ?? '');
  // Static pages (GraphiQL bundles its libraries) are the same for everyone; answers are checked.
  if (type.startsWith('text/html') || type.startsWith('text/javascript')) return;
  const text = answer.body.toString('utf8');
  for (const leak of LEAKS) expect(text).not.toMatch(leak);
}

describe('the HTTP endpoint under random requests', () => {
  it(
    `answers every request with a 2xx or 4xx that reveals nothing, and keeps serving (${RUNS} sequences)`,
    async () => {
      const started = Date.now();
      await fc.assert(
        fc.asyncProperty(fc.array(requests, { minLength: 1, maxLength: 8 }), async (sequence) => {
          STATS.sequences += 1;
          for (const request of sequence) await check(request);
          const alive = await stack.gql('{ viewer { id } }', {}, TOKENS.bob);
          expect(alive.data).toEqual({ viewer: { id: 'bob' } });
          expect(stack.logger.entries.filter((entry) => entry.level === 'error').map((e) => e.message)).toEqual([]);
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      const file = process.env.AGENT_TEAMS_HTTP_FUZZ_STATS_FILE;
      if (file) writeFileSync(file, JSON.stringify({ ...STATS, durationMs: Date.now() - started }));
    },
    30_000 + RUNS * 250,
  );
});
