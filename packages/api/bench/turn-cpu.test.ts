import { describe, expect, it } from 'vitest';
import type { TurnTrace } from './harness/turn-stack.js';
import { CATEGORIES, CPU_STEPS, type CpuProfile, categoryOf, cpuBySteps, profiled, turnBounds } from './turn-cpu.js';
import type { TurnSample } from './turn-user-process.js';

const frame = (functionName: string, url = '') => ({ functionName, url });

describe('the CPU-by-step cut of the turn-overhead section', () => {
  it('puts each leaf frame in its category', () => {
    expect(categoryOf(frame('(idle)'))).toBe('idle');
    expect(categoryOf(frame('(garbage collector)'))).toBe('GC');
    expect(categoryOf(frame('run'))).toBe('SQLite');
    expect(categoryOf(frame('all'))).toBe('SQLite');
    const cache = 'file:///w/packages/api/src/storage/sqlite-statement-cache.ts';
    expect(categoryOf(frame('all', cache))).toBe('SQLite');
    expect(categoryOf(frame('prepare', cache))).toBe('SQLite');
    expect(categoryOf(frame('withStatementCache', cache))).toBe('Agent Teams code');
    expect(categoryOf(frame('writev'))).toBe('Node HTTP, sockets, streams');
    expect(categoryOf(frame('(program)'))).toBe('other');
    const pnpm = 'file:///w/node_modules/.pnpm';
    expect(categoryOf(frame('compile', `${pnpm}/kysely@0.28.19/node_modules/kysely/dist/esm/x.js`))).toBe('Kysely');
    expect(categoryOf(frame('fetching', 'node:internal/deps/undici/undici'))).toBe('model call client');
    expect(categoryOf(frame('read', 'node:internal/webstreams/readablestream'))).toBe('model call client');
    expect(categoryOf(frame('post', `${pnpm}/openai@6.49.0_ws@8/node_modules/openai/client.mjs`))).toBe(
      'model call client',
    );
    // The model call's own transport and SSE reading count with the client they replaced.
    const openaiDir = 'file:///w/packages/api/src/runtimes/openai';
    expect(categoryOf(frame('post', `${openaiDir}/provider-http.ts`))).toBe('model call client');
    expect(categoryOf(frame('onChunk', `${openaiDir}/sse-reader.ts`))).toBe('model call client');
    expect(
      categoryOf(frame('feed', `${pnpm}/eventsource-parser@3.1.1/node_modules/eventsource-parser/dist/index.js`)),
    ).toBe('model call client');
    expect(categoryOf(frame('callModel', `${openaiDir}/chat-call.ts`))).toBe('Agent Teams code');
    expect(categoryOf(frame('execute', `${pnpm}/graphql@16.11.0/node_modules/graphql/execution/execute.js`))).toBe(
      'GraphQL, Yoga, graphql-ws',
    );
    expect(categoryOf(frame('handle', `${pnpm}/@whatwg-node+server@0.11.0/node_modules/x.js`))).toBe(
      'GraphQL, Yoga, graphql-ws',
    );
    expect(categoryOf(frame('promiseInitHook', 'node:internal/async_hooks'))).toBe('async context hooks');
    expect(categoryOf(frame('advanceJob', 'file:///w/packages/api/src/scheduler/advance-job.ts'))).toBe(
      'Agent Teams code',
    );
    expect(categoryOf(frame('transition', 'file:///w/packages/core/dist/jobs/job-machine.js'))).toBe(
      'Agent Teams code',
    );
    // Our own modules whose paths name a library are still ours.
    expect(categoryOf(frame('readStream', 'file:///w/packages/api/src/runtimes/openai/chat-call.ts'))).toBe(
      'Agent Teams code',
    );
    expect(categoryOf(frame('runGraphql', 'file:///w/packages/api/src/interop/mcp/run-graphql.ts'))).toBe(
      'Agent Teams code',
    );
    expect(categoryOf(frame('_storeHeader', 'node:_http_outgoing'))).toBe('Node HTTP, sockets, streams');
    expect(categoryOf(frame('onwrite', 'node:internal/streams/writable'))).toBe('Node HTTP, sockets, streams');
    expect(categoryOf(frame('listOnTimeout', 'node:internal/timers'))).toBe('other');
    // The benchmark's own harness is not the product's code.
    expect(categoryOf(frame('watch', 'file:///w/packages/api/bench/harness/turn-stack.ts'))).toBe('other');
  });

  it('bounds a turn by its stamps in order, and leaves out a turn with one missing or out of order', () => {
    const trace: TurnTrace = {
      commits: [
        { at: 10, kinds: ['JOB_CHANGED'] },
        { at: 40, kinds: ['JOB_CHANGED'] },
        { at: 90, kinds: ['JOB_CHANGED'] },
      ],
      start: 12,
      polls: [30, 35, 95],
    };
    const sample: TurnSample = {
      jobId: 'job_1',
      called: 5,
      accepted: 15,
      seen: 42,
      direct: 2,
      provider: { receivedAt: 20, answeredAt: 25, bytes: 1024 },
    };
    // The completion is the last commit before COMPLETED was seen, the poll the last before it.
    expect(turnBounds(trace, sample)).toEqual([5, 10, 12, 20, 25, 35, 40, 42]);
    expect(turnBounds({ ...trace, start: undefined }, sample)).toBeNull();
    expect(turnBounds(trace, { ...sample, provider: null })).toBeNull();
    expect(turnBounds(trace, { ...sample, provider: { receivedAt: 26, answeredAt: 25, bytes: 1024 } })).toBeNull();
  });

  it('gives each sample interval to the step its time falls in and to its category, per turn', () => {
    // Node 1 is the root; 2 SQLite, 3 our code, 4 idle. One sample every 100 µs from t = 1,000 µs.
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(root)'), children: [2, 3, 4] },
        { id: 2, callFrame: frame('run') },
        { id: 3, callFrame: frame('advanceJob', 'file:///w/packages/api/src/scheduler/advance-job.ts') },
        { id: 4, callFrame: frame('(idle)') },
      ],
      startTime: 1_000,
      samples: [2, 2, 3, 4, 3, 2, 3, 4],
      timeDeltas: [0, 100, 100, 100, 100, 100, 100, 100],
    };
    // Samples at 1.0, 1.1, … 1.7 ms. Two turns: the first spans 1.0–1.25 ms, the second 1.4–1.65 ms,
    // each cut into the seven steps (the last steps of each are empty).
    const first = [1.0, 1.15, 1.25, 1.25, 1.25, 1.25, 1.25, 1.25];
    const second = [1.4, 1.45, 1.55, 1.65, 1.65, 1.65, 1.65, 1.65];
    const result = cpuBySteps(profile, [first, second]);
    expect(result.turns).toBe(2);
    expect(result.header).toEqual(['Step (ms per turn)', 'busy', ...CATEGORIES, 'idle']);
    expect(result.rows.map((row) => row[0])).toEqual([...CPU_STEPS, expect.stringMatching(/^between turns/)]);
    const column = (name: string) => result.header.indexOf(name);
    const cell = (step: number, name: string) => Number(result.rows[step]?.[column(name)]);
    // Step 1: the samples at 1.0 and 1.1 (SQLite) of the first turn, 1.4 (our code) of the second.
    expect(cell(0, 'SQLite')).toBeCloseTo(0.1, 5);
    expect(cell(0, 'Agent Teams code')).toBeCloseTo(0.05, 5);
    expect(cell(0, 'busy')).toBeCloseTo(0.15, 5);
    // Step 2: 1.2 (our code) of the first turn, 1.5 (SQLite) of the second.
    expect(cell(1, 'Agent Teams code')).toBeCloseTo(0.05, 5);
    expect(cell(1, 'SQLite')).toBeCloseTo(0.05, 5);
    // Step 3: 1.6 (our code) of the second turn.
    expect(cell(2, 'Agent Teams code')).toBeCloseTo(0.05, 5);
    // Between the turns: 1.3 (idle); the last sample weighs nothing.
    expect(cell(7, 'idle')).toBeCloseTo(0.05, 5);
    expect(cell(7, 'busy')).toBe(0);
    expect(result.busyMsPerTurn).toBeCloseTo(0.3, 5);
  });

  it('samples the main thread while the work runs, and stops when it throws', async () => {
    const spin = (ms: number) => {
      const until = performance.now() + ms;
      let x = 0;
      while (performance.now() < until) x += Math.sqrt(x + 1);
      return x;
    };
    // The sampler is a thread of its own: on a loaded machine it runs late, so the spin grows
    // (30 ms, then 4× longer each time) until it took 50 samples, rather than trusting one length.
    const sampledSpin = async () => {
      for (let ms = 30; ; ms *= 4) {
        const run = await profiled(async () => spin(ms));
        if (run.profile.samples.length > 50 || ms >= 30 * 4 ** 4) return run;
      }
    };
    const { result, profile } = await sampledSpin();
    expect(result).toBeGreaterThan(0);
    expect(profile.samples.length).toBeGreaterThan(50);
    expect(profile.samples.length).toBe(profile.timeDeltas.length);
    // Sampled every 100 µs, not at V8's default 1 ms: the closest two samples are well under 1 ms
    // apart however late the others ran.
    expect(Math.min(...profile.timeDeltas.slice(1))).toBeLessThan(500);
    await expect(
      profiled(async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    // The profiler was stopped: a second profile starts afresh.
    const again = await sampledSpin();
    expect(again.profile.samples.length).toBeGreaterThan(50);
  });
});
