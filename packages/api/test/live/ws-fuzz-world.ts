import { expect } from 'vitest';
import WebSocket from 'ws';
import type { GraphqlStack } from '../graphql/graphql-stack.js';
import { type ClientPool, RawSocket, until } from './live-clients.js';

/** What the model knows of one socket of the fuzzed owner. */
export interface SocketModel {
  initialised: boolean;
  /** Ids of long-running subscriptions (teamEvents) the server must hold for this socket. */
  readonly running: Set<string>;
}

/** The model: the open sockets of the fuzzed owner, by slot. */
export interface FuzzModel {
  readonly sockets: (SocketModel | null)[];
}

/** Close codes the server may use; anything else (4500 above all) is a defect. */
export const ALLOWED_CLOSE_CODES = new Set([1000, 1001, 1005, 1006, 1007, 1009, 4400, 4401, 4403, 4408, 4409, 4429]);

/** Figures over all sequences (written for `pnpm chaos`). */
export const FUZZ_STATS = {
  sequences: 0,
  commands: 0,
  closes: {} as Record<string, number>,
  subscriptions: 0,
  refusedSubscriptions: 0,
};

/** The real side: the server, the fuzzed owner's sockets by slot, and an observer of another owner. */
export class FuzzWorld {
  readonly sockets: (RawSocket | null)[] = [null, null, null];
  #queries = 0;

  constructor(
    readonly stack: GraphqlStack,
    readonly pool: ClientPool,
    readonly teamId: string,
  ) {}

  /** A fresh id for a one-shot operation (queries never reuse ids, so the model stays exact). */
  queryId(): string {
    this.#queries += 1;
    return `q-${this.#queries}`;
  }

  /** Opens a raw socket in `slot`. */
  async open(slot: number): Promise<RawSocket> {
    const socket = new WebSocket(this.pool.wsUrl, 'graphql-transport-ws');
    const raw = new RawSocket(socket);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    this.sockets[slot] = raw;
    return raw;
  }

  /** Waits for the socket in `slot` to close with `code`, and forgets it. */
  async expectClose(slot: number, codes: readonly number[]): Promise<void> {
    const raw = this.sockets[slot];
    if (!raw) throw new Error(`no socket in slot ${slot}`);
    const { code, reason } = await raw.closed;
    FUZZ_STATS.closes[code] = (FUZZ_STATS.closes[code] ?? 0) + 1;
    expect(codes).toContain(code);
    expect(Buffer.byteLength(reason)).toBeLessThanOrEqual(123);
    this.sockets[slot] = null;
  }

  /** Closes every socket of the sequence from the client side. */
  async closeAll(): Promise<void> {
    for (const [slot, raw] of this.sockets.entries()) {
      if (!raw) continue;
      raw.socket.terminate();
      await raw.closed;
      this.sockets[slot] = null;
    }
  }
}

/** The owner's running operations as the server counts them. */
export function runningOf(stack: GraphqlStack, owner: string): number {
  return stack.server.live.operationsOf(owner as never);
}

/** The model's running subscriptions over every open socket. */
export function modelRunning(model: FuzzModel): number {
  return model.sockets.reduce((sum, socket) => sum + (socket?.running.size ?? 0), 0);
}

/** Waits until the server's count for `owner` is `expected` (operations finish asynchronously). */
export async function expectRunning(stack: GraphqlStack, owner: string, expected: number): Promise<void> {
  await until(() => runningOf(stack, owner) === expected, `${owner} to run ${expected} operations`, 10_000).catch(
    () => {
      expect(runningOf(stack, owner)).toBe(expected);
    },
  );
}
