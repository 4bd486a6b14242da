import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const apiRoot = fileURLToPath(new URL('../', import.meta.url));

/** A running `agent-teams serve` child process. */
export interface ServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** Milliseconds from spawn to the `listening on` line (a monotonic clock: a wall-clock step is not a slow start). */
  readonly startMs: number;
  output(): string;
}

/** Starts the real CLI on `database` (with `args` after its own); resolves once it listens. */
export function startServer(
  database: string,
  timeoutMs = 60_000,
  args: readonly string[] = [],
): Promise<ServerProcess> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      '--conditions=@agent-teams/source',
      '--import',
      'tsx',
      'src/cli.ts',
      'serve',
      '--port',
      '0',
      '--database',
      database,
      ...args,
    ],
    {
      cwd: apiRoot,
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const append = (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start in time:\n${out}`));
    }, timeoutMs);
    const onData = () => {
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.off('exit', onExit);
        resolve({ child, url: match[1], startMs: Math.round(performance.now() - started), output: () => out });
      }
    };
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${out}`));
    };
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
}

/** Kills the server with `signal` and waits for the process to be gone. */
export async function stopServer(server: ServerProcess, signal: NodeJS.Signals): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => server.child.once('exit', () => resolve()));
  server.child.kill(signal);
  await gone;
}

/** A loosely typed GraphQL response. */
// biome-ignore lint/suspicious/noExplicitAny: the harness reads loosely typed GraphQL JSON.
export type GqlResult = { data?: Record<string, any>; errors?: { extensions?: { code?: string } }[] };

/** A GraphQL call as `token`'s owner (the development token's by default); network errors (a killed server) answer null. */
export async function gql(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  token = 'dev-token',
): Promise<GqlResult | null> {
  try {
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
      signal: AbortSignal.timeout(10_000),
    });
    return (await response.json()) as GqlResult;
  } catch {
    return null;
  }
}
