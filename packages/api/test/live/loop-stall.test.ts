import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphqlStack, type GraphqlStack, TOKENS } from '../graphql/graphql-stack.js';
import { openLivePool } from './live-clients.js';

/**
 * Long enough that the peer process answers a ping well within it on a loaded machine: a ping
 * unanswered at the next tick drops the socket whether or not the loop stalled.
 */
const KEEP_ALIVE_MS = 1_000;
const INIT_TIMEOUT_MS = 1_000;
/** How long the server's event loop is held past a deadline it must not judge on its own. */
const STALL_PAST_MS = 500;
const PEER = fileURLToPath(new URL('./stall-peer.mjs', import.meta.url));

let stack: GraphqlStack;
let wsUrl: string;
let dir: string;
const peers: ChildProcess[] = [];
/** The waits' deadlines, cleared at the end: one left by a failed test must not fire later. */
const deadlines = new Set<NodeJS.Timeout>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agent-teams-stall-'));
  stack = await createGraphqlStack({
    scheduler: false,
    live: { keepAliveMs: KEEP_ALIVE_MS, initTimeoutMs: INIT_TIMEOUT_MS },
  });
  ({ wsUrl } = await openLivePool(stack.server));
});
afterAll(async () => {
  for (const deadline of deadlines) clearTimeout(deadline);
  for (const peer of peers) peer.kill();
  await stack.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A peer process connected to the server, its reports, and a wait for one of them. */
function peer(name: string) {
  const marker = join(dir, name);
  const child = spawn(process.execPath, [PEER, wsUrl, marker, TOKENS.alice], { stdio: ['pipe', 'pipe', 'inherit'] });
  peers.push(child);
  const { stdin, stdout } = child;
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  createInterface({ input: stdout }).on('line', (line) => {
    lines.push(line);
    for (const wake of waiters.splice(0)) wake();
  });
  const next = (test: (line: string) => boolean, what: string) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no "${what}" from the peer; it said ${lines.join(', ')}`)),
        20_000,
      );
      const check = () => {
        const found = lines.find(test);
        if (found === undefined) return waiters.push(check);
        clearTimeout(timer);
        resolve(found);
      };
      check();
    });
  /** Tells the peer to send `command`; the marker file it writes once the frame left it. */
  const command = (name: 'init' | 'pong') => {
    stdin.write(`${name}\n`);
    return `${marker}.${name}`;
  };
  return { lines, next, command };
}

/** Blocks this thread for `ms` without spinning a core (the peer and the other test files need it). */
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));
const block = (ms: number) => Atomics.wait(SLEEPER, 0, 0, ms);

/**
 * Holds this process's event loop (the server's) until the peer's frame left it (`sent`, its
 * marker file) and `atLeastMs` passed since `from`: the frame then waits unread in the socket, and
 * the deadline the server must judge by it has passed.
 */
function stallUntilSent(sent: string, from: number, atLeastMs: number): void {
  const cap = Date.now() + 20_000;
  while (!(existsSync(sent) && Date.now() - from >= atLeastMs)) {
    if (Date.now() > cap) throw new Error('the peer never sent its frame');
    block(5);
  }
}

describe('live sockets across a stall of the event loop (answers that arrived during it are read first)', () => {
  it('keeps a socket whose pong arrived while the loop was stalled past the next keep-alive tick', async () => {
    const p = peer('pong');
    await p.next((line) => line === 'open', 'open');
    p.command('init');
    await p.next((line) => line === 'ack', 'ack');
    await p.next((line) => line === 'ping 1', 'the first ping');
    const pinged = Date.now();
    const ponged = p.command('pong');
    // The tick after this ping is due during the stall; the pong is unread when it fires.
    stallUntilSent(ponged, pinged, KEEP_ALIVE_MS + STALL_PAST_MS);
    // Two more pings: the socket is alive (a dropped one reports `close 1006` instead).
    await p.next((line) => line === 'ping 3' || line.startsWith('close'), 'two more pings');
    expect(p.lines.filter((line) => line.startsWith('close'))).toEqual([]);
    expect(p.lines).toContain('ping 3');
  });

  it('acknowledges a connection_init that arrived while the loop was stalled past the init timeout', async () => {
    const p = peer('init');
    await p.next((line) => line === 'open', 'open');
    const opened = Date.now();
    stallUntilSent(p.command('init'), opened, INIT_TIMEOUT_MS + STALL_PAST_MS);
    const answer = await p.next((line) => line === 'ack' || line.startsWith('close'), 'an answer to the init');
    expect(answer).toBe('ack');
  });

  it('still drops a peer that never answers a ping, and closes one that never initialises (4408)', async () => {
    const silent = peer('silent');
    await silent.next((line) => line === 'open', 'open');
    // Never initialised: closed once the init timeout passed.
    expect(await silent.next((line) => line.startsWith('close'), 'a close')).toBe('close 4408');
    const mute = peer('mute');
    await mute.next((line) => line === 'open', 'open');
    mute.command('init');
    await mute.next((line) => line === 'ack', 'ack');
    await mute.next((line) => line === 'ping 1', 'the first ping');
    // Its first ping is never answered: dropped at the next tick.
    expect(await mute.next((line) => line.startsWith('close'), 'a close')).toBe('close 1006');
  });
});
