import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startDelayProxy } from './harness/delay-proxy.js';
import { readMachineInfo } from './harness/machine-info.js';
import { postgresRoundTrips } from './postgres-round-trips.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-round-trips-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An echo server on loopback; its port and how to close it. */
async function echoServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = net.createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('the delaying proxy', () => {
  it('passes every byte in order each way, each chunk held at least the delay', async () => {
    const echo = await echoServer();
    const proxy = await startDelayProxy(echo.port, 5);
    const socket = net.connect(proxy.port, '127.0.0.1');
    // Bytes, cut wherever they fall (inside a character too): the proxy passes chunks, not text.
    const sent = Buffer.from(Array.from({ length: 50 }, (_, i) => `chunk ${i} 数据 😀;`).join(''));
    const received: Buffer[] = [];
    const done = new Promise<void>((resolve) =>
      socket.on('data', (data) => {
        received.push(data);
        if (Buffer.concat(received).length >= sent.length) resolve();
      }),
    );
    const started = performance.now();
    await new Promise<void>((resolve) => socket.on('connect', resolve));
    for (let i = 0; i < sent.length; i += 37) socket.write(sent.subarray(i, i + 37));
    await done;
    // There and back: two holds of 5 ms at least (timers never fire early).
    expect(performance.now() - started).toBeGreaterThanOrEqual(9);
    expect(Buffer.concat(received).equals(sent)).toBe(true);
    expect(proxy.chunks.toServer).toBeGreaterThan(0);
    expect(proxy.chunks.toClient).toBeGreaterThan(0);
    socket.destroy();
    await proxy.close();
    await echo.close();
  });
});

describe('postgres-round-trips benchmark', () => {
  it('completes every job straight and through the proxy, in both modes', async () => {
    // Needs the PostgreSQL server (AGENT_TEAMS_BENCH_POSTGRES); fails, never skips, without it.
    const report = await postgresRoundTrips.run({
      scale: 'tiny',
      dir,
      machine: await readMachineInfo(),
      log: () => {},
    });
    const rows = report.tables[0]?.rows ?? [];
    expect(rows.map((row) => row[1])).toEqual(['16/16', '16/16', '16/16', '16/16', '16/16', '16/16']);
    // Per mode: loopback, the proxy, the proxy with `--pg-pipeline off`. Only the proxy counts
    // chunks: without pipelining at least one per statement; pipelined, fewer than without.
    for (const at of [0, 3]) {
      const [straight, pipelined, unpipelined] = rows.slice(at, at + 3);
      expect(straight?.[5]).toBe('');
      expect(Number(unpipelined?.[5])).toBeGreaterThanOrEqual(Number(unpipelined?.[4]));
      expect(Number(pipelined?.[5])).toBeLessThan(Number(unpipelined?.[5]));
    }
    expect(report.metrics.drainStatementsPerJob).toBeGreaterThan(5);
    // Sends through the proxy wait for its round trips: each at least 2 ms more than on loopback.
    const sends = report.tables[1]?.rows ?? [];
    expect(sends.map((row) => row[1])).toEqual(['6', '6', '6']);
    expect(report.metrics.delayedSendP50Ms).toBeGreaterThan((report.metrics.sendP50Ms ?? 0) + 2);
  });
});
