import fc from 'fast-check';
import { expect } from 'vitest';
import { TOKENS } from '../graphql/graphql-stack.js';
import { TEAM_EVENTS } from './live-clients.js';
import { FUZZ_STATS, type FuzzModel, type FuzzWorld, type SocketModel } from './ws-fuzz-world.js';

type Command = fc.AsyncCommand<FuzzModel, FuzzWorld>;
const MAX_ID_BYTES = 128;
const PER_SOCKET = 20;

/** Whether the server takes `id` as an operation id at all (else: close 4400). */
const usableId = (id: string) => id !== '' && Buffer.byteLength(id) <= MAX_ID_BYTES;

/** A command on the socket in `slot`, with one argument of its own. */
abstract class OnSocket<A = undefined> implements Command {
  constructor(
    readonly slot: number,
    readonly arg: A,
  ) {}
  check(model: Readonly<FuzzModel>): boolean {
    return model.sockets[this.slot] !== null;
  }
  protected socket(model: FuzzModel): SocketModel {
    return model.sockets[this.slot] as SocketModel;
  }
  protected async closes(model: FuzzModel, world: FuzzWorld, codes: readonly number[]): Promise<void> {
    model.sockets[this.slot] = null;
    await world.expectClose(this.slot, codes);
  }
  abstract run(model: FuzzModel, world: FuzzWorld): Promise<void>;
  abstract toString(): string;
}

class Open implements Command {
  constructor(
    readonly slot: number,
    readonly init: boolean,
  ) {}
  check = (model: Readonly<FuzzModel>) => model.sockets[this.slot] === null;
  async run(model: FuzzModel, world: FuzzWorld) {
    const raw = await world.open(this.slot);
    model.sockets[this.slot] = { initialised: this.init, running: new Set() };
    // Most sockets start the usual way, so the sequence reaches subscriptions often.
    if (this.init) await raw.init(TOKENS.alice);
  }
  toString = () => `open(${this.slot}${this.init ? ', init' : ''})`;
}

type InitKind = 'valid' | 'unknown' | 'missing' | 'notObject';
class Init extends OnSocket<InitKind> {
  async run(model: FuzzModel, world: FuzzWorld) {
    const raw = world.sockets[this.slot];
    const payload = {
      valid: { authorization: `Bearer ${TOKENS.alice}` },
      unknown: { authorization: 'Bearer tok-nobody' },
      missing: {},
      notObject: 'Bearer x',
    }[this.arg];
    raw?.send({ type: 'connection_init', payload });
    const socket = this.socket(model);
    if (this.arg === 'notObject') return this.closes(model, world, [4400]);
    if (socket.initialised) return this.closes(model, world, [4429]);
    if (this.arg !== 'valid') return this.closes(model, world, [4403]);
    await raw?.waitFor((frame) => frame.type === 'connection_ack');
    socket.initialised = true;
  }
  toString = () => `init(${this.slot}, ${this.arg})`;
}

class Subscribe extends OnSocket<string> {
  async run(model: FuzzModel, world: FuzzWorld) {
    const raw = world.sockets[this.slot];
    raw?.send({
      id: this.arg,
      type: 'subscribe',
      payload: { query: TEAM_EVENTS, variables: { teamId: world.teamId } },
    });
    const socket = this.socket(model);
    if (!usableId(this.arg)) return this.closes(model, world, [4400]);
    if (!socket.initialised) return this.closes(model, world, [4401]);
    if (socket.running.has(this.arg)) return this.closes(model, world, [4409]);
    if (socket.running.size >= PER_SOCKET) {
      const frame = await raw?.waitFor((f) => f.id === this.arg && f.type === 'error');
      expect(JSON.stringify(frame?.payload)).toContain('SUBSCRIPTION_LIMIT');
      // Forget the refusal, so a later subscribe with the same id is judged afresh.
      raw?.frames.splice(raw.frames.indexOf(frame as never), 1);
      FUZZ_STATS.refusedSubscriptions += 1;
      return;
    }
    socket.running.add(this.arg);
    FUZZ_STATS.subscriptions += 1;
  }
  toString = () => `subscribe(${this.slot}, ${JSON.stringify(this.arg)})`;
}

/** The same subscribe sent twice in a row (how a long id once took the server down). */
class SubscribeTwice extends OnSocket<string> {
  async run(model: FuzzModel, world: FuzzWorld) {
    await new Subscribe(this.slot, this.arg).run(model, world);
    if (model.sockets[this.slot] !== null) await new Subscribe(this.slot, this.arg).run(model, world);
  }
  toString = () => `subscribeTwice(${this.slot}, ${JSON.stringify(this.arg)})`;
}

/** A burst of subscribes with fresh ids: reaches the per-socket cap of 20. */
class SubscribeMany extends OnSocket<number> {
  override check(model: Readonly<FuzzModel>): boolean {
    return super.check(model) && (model.sockets[this.slot]?.initialised ?? false);
  }
  async run(model: FuzzModel, world: FuzzWorld) {
    for (let i = 0; i < this.arg; i++) await new Subscribe(this.slot, world.queryId()).run(model, world);
  }
  toString = () => `subscribeMany(${this.slot}, ${this.arg})`;
}

type QueryKind = 'viewer' | 'syntax' | 'costBomb' | 'nul' | 'unknownOperation' | 'nearLimit';
const QUERIES: Record<QueryKind, { query: string; variables?: Record<string, unknown>; operationName?: string }> = {
  viewer: { query: '{ viewer { id } }' },
  syntax: { query: '{ viewer { id ' },
  costBomb: {
    query: `query($n: Int) { viewer { teams(first: $n) { edges { node { jobs(first: $n) { edges { node {
      team { jobs(first: $n) { edges { node { id } } } } } } } } } } } }`,
    variables: { n: 100 },
  },
  nul: { query: 'query($id: ID!) { team(id: $id) { id } }', variables: { id: 'team_\u0000' } },
  unknownOperation: { query: 'query A { viewer { id } }', operationName: 'B' },
  nearLimit: { query: `{ viewer { id } } # ${'x'.repeat(60_000)}` },
};

class Query extends OnSocket<QueryKind> {
  async run(model: FuzzModel, world: FuzzWorld) {
    const raw = world.sockets[this.slot];
    const id = world.queryId();
    raw?.send({ id, type: 'subscribe', payload: QUERIES[this.arg] });
    if (!this.socket(model).initialised) return this.closes(model, world, [4401]);
    await raw?.waitFor((f) => f.id === id && (f.type === 'complete' || f.type === 'error'));
    const frames = raw?.frames.filter((f) => f.id === id) ?? [];
    const failed = frames.some((f) => f.type === 'error' || JSON.stringify(f.payload ?? null).includes('"errors"'));
    // A query takes a slot too: on a full socket it is refused like a subscription.
    const full = this.socket(model).running.size >= PER_SOCKET;
    expect(failed).toBe(full || (this.arg !== 'viewer' && this.arg !== 'nearLimit'));
    if (full) expect(JSON.stringify(frames)).toContain('SUBSCRIPTION_LIMIT');
    expect(JSON.stringify(frames)).not.toContain('Unexpected error');
  }
  toString = () => `query(${this.slot}, ${this.arg})`;
}

class Complete extends OnSocket<string> {
  async run(model: FuzzModel, world: FuzzWorld) {
    world.sockets[this.slot]?.send({ id: this.arg, type: 'complete' });
    if (!usableId(this.arg)) return this.closes(model, world, [4400]);
    this.socket(model).running.delete(this.arg);
  }
  toString = () => `complete(${this.slot}, ${JSON.stringify(this.arg)})`;
}

type GarbageKind = 'notJson' | 'array' | 'unknownType' | 'serverType' | 'binary' | 'invalidUtf8' | 'tooBig' | 'empty';
class Garbage extends OnSocket<GarbageKind> {
  async run(model: FuzzModel, world: FuzzWorld) {
    const socket = world.sockets[this.slot]?.socket;
    const send = {
      notJson: () => socket?.send('{"type":'),
      array: () => socket?.send('[{"type":"ping"}]'),
      unknownType: () => socket?.send('{"type":"subscribe_all","id":"1"}'),
      serverType: () => socket?.send('{"type":"next","id":"1","payload":{}}'),
      binary: () => socket?.send(Buffer.from('{"type":"ping"}'), { binary: true }),
      invalidUtf8: () => socket?.send(Buffer.from([0x7b, 0xc3, 0x28, 0x7d]), { binary: false }),
      tooBig: () => socket?.send(JSON.stringify({ type: 'ping', payload: { pad: 'x'.repeat(70_000) } })),
      empty: () => socket?.send(''),
    }[this.arg];
    send();
    const code = this.arg === 'invalidUtf8' ? 1007 : this.arg === 'tooBig' ? 1009 : 4400;
    await this.closes(model, world, [code]);
  }
  toString = () => `garbage(${this.slot}, ${this.arg})`;
}

class Ping extends OnSocket {
  async run(_model: FuzzModel, world: FuzzWorld) {
    const raw = world.sockets[this.slot];
    const pongs = () => raw?.frames.filter((f) => f.type === 'pong').length ?? 0;
    const before = pongs();
    raw?.send({ type: 'ping' });
    await raw?.waitFor(() => pongs() > before);
  }
  toString = () => `ping(${this.slot})`;
}

class Leave extends OnSocket<boolean> {
  async run(model: FuzzModel, world: FuzzWorld) {
    const raw = world.sockets[this.slot];
    if (this.arg) raw?.socket.terminate();
    else raw?.socket.close(1000);
    await this.closes(model, world, this.arg ? [1006] : [1000, 1005]);
  }
  toString = () => `leave(${this.slot}, ${this.arg ? 'terminate' : 'close'})`;
}

/** Ids of a given UTF-8 length around the 128-byte limit, in one alphabet padded with ASCII. */
const longIds = fc
  .tuple(fc.constantFrom('x', '数', '😀', '\ud800', '"'), fc.integer({ min: 90, max: 140 }))
  .map(([unit, bytes]) => {
    const size = Buffer.byteLength(unit);
    const count = Math.floor(bytes / size);
    return unit.repeat(count) + 'x'.repeat(bytes - count * size);
  });

/** Operation ids of every length and alphabet, with a few short ones that recur (reused ids). */
const ids = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('a', 'b', 'c') },
  { weight: 2, arbitrary: longIds },
  fc.string({ unit: fc.constantFrom('a', '数', '😀', '\ud800', '"', '\\', '\u0000'), maxLength: 70 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
);
/** Mostly the first socket, so one socket sees long sequences; sometimes two more beside it. */
const slots = fc.constantFrom(0, 0, 0, 1, 2);

const subscribe = fc.tuple(slots, ids).map(([slot, id]) => new Subscribe(slot, id));

/** Every command the fuzzer draws from (subscribes listed thrice: drawn more often). */
export const COMMANDS = [
  fc.tuple(slots, fc.boolean()).map(([slot, init]) => new Open(slot, init)),
  fc.tuple(slots, fc.constant(true)).map(([slot, init]) => new Open(slot, init)),
  subscribe,
  subscribe,
  fc
    .tuple(slots, fc.constantFrom<InitKind>('valid', 'valid', 'valid', 'unknown', 'missing', 'notObject'))
    .map(([slot, kind]) => new Init(slot, kind)),
  subscribe,
  fc.tuple(slots, ids).map(([slot, id]) => new SubscribeTwice(slot, id)),
  fc.tuple(slots, fc.integer({ min: 1, max: 24 })).map(([slot, count]) => new SubscribeMany(slot, count)),
  fc
    .tuple(slots, fc.constantFrom<QueryKind>('viewer', 'syntax', 'costBomb', 'nul', 'unknownOperation', 'nearLimit'))
    .map(([slot, kind]) => new Query(slot, kind)),
  fc.tuple(slots, ids).map(([slot, id]) => new Complete(slot, id)),
  fc
    .tuple(
      slots,
      fc.constantFrom<GarbageKind>(
        'notJson',
        'array',
        'unknownType',
        'serverType',
        'binary',
        'invalidUtf8',
        'tooBig',
        'empty',
      ),
    )
    .map(([slot, kind]) => new Garbage(slot, kind)),
  slots.map((slot) => new Ping(slot, undefined)),
  fc.tuple(slots, fc.boolean()).map(([slot, abrupt]) => new Leave(slot, abrupt)),
];
