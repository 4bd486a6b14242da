import net from 'node:net';

/** A TCP proxy on loopback that holds every chunk for a while before passing it on. */
export interface DelayProxy {
  /** The port it listens on (127.0.0.1). */
  readonly port: number;
  /** Chunks passed on each way so far (a round trip is at least one each way). */
  readonly chunks: { readonly toServer: number; readonly toClient: number };
  close(): Promise<void>;
}

/**
 * Forwards connections to `127.0.0.1:targetPort`, each chunk held `delayMs` in each direction, as
 * a network between two machines would (a benchmark's stand-in for a database in another zone).
 *
 * @remarks A timer per chunk: timers of the same delay fire in the order they were set, so each
 * direction keeps its bytes in order. The delay is at least 1 ms (Node's timers have no finer
 * grain), and the proxy's own work runs in the benchmark's process: its CPU counts there.
 */
export async function startDelayProxy(targetPort: number, delayMs: number): Promise<DelayProxy> {
  const chunks = { toServer: 0, toClient: 0 };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      socket.setNoDelay(true);
      sockets.add(socket);
    }
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('data', (chunk) => {
      chunks.toServer += 1;
      setTimeout(() => upstream.write(chunk), delayMs);
    });
    upstream.on('data', (chunk) => {
      chunks.toClient += 1;
      setTimeout(() => client.write(chunk), delayMs);
    });
    for (const socket of [client, upstream]) {
      socket.on('close', end);
      socket.on('error', end);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('[agent-teams/bench] the proxy has no port');
  return {
    port: address.port,
    chunks,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
