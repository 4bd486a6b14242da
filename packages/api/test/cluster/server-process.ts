import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const apiRoot = fileURLToPath(new URL('../../', import.meta.url));
/** How long one `agent-teams serve` may take to print its `listening on` line (tsx compiles on start). */
const START_LIMIT_MS = 45_000;

/** Every child still alive in this test process; killed on exit so a crashed run leaves no servers behind. */
const alive = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of alive) child.kill('SIGKILL');
});

/** How a {@link ServerProcess} ended. */
export interface ServerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** What {@link ServerProcess.start} runs. */
export interface ServerProcessOptions {
  /** A label for logs (`s1`, `s2`, ...). */
  readonly name: string;
  /** The `postgres://` URL every server of the cluster shares. */
  readonly database: string;
  /** Path of the JSON configuration (tokens, agents). */
  readonly config: string;
  /** More `serve` flags, e.g. `['--lease-ttl', '3000']`. */
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * One real `agent-teams serve` child process (`node --import tsx src/cli.ts serve --port 0 ...`),
 * with its stdout and stderr collected for assertions and for printing when a test fails.
 */
export class ServerProcess {
  readonly #child: ChildProcess;
  readonly #exit: Promise<ServerExit>;
  #output = '';
  #url = '';

  private constructor(
    readonly name: string,
    child: ChildProcess,
  ) {
    this.#child = child;
    alive.add(child);
    const collect = (chunk: Buffer) => {
      this.#output += chunk.toString();
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.#exit = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        alive.delete(child);
        resolve({ code, signal });
      }),
    );
  }

  /** Starts a server and resolves once it prints `listening on http://...`; rejects with its output otherwise. */
  static async start(opts: ServerProcessOptions): Promise<ServerProcess> {
    const args = ['serve', '--port', '0', '--database', opts.database, '--config', opts.config, ...(opts.args ?? [])];
    const child = spawn(
      process.execPath,
      ['--conditions=@agent-teams/source', '--import', 'tsx', 'src/cli.ts', ...args],
      {
        cwd: apiRoot,
        // A shared AGENT_TEAMS_* from the developer's shell must not change what the test runs.
        env: { ...withoutAgentTeamsEnv(process.env), ...opts.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const server = new ServerProcess(opts.name, child);
    await server.#listening();
    return server;
  }

  /** `http://127.0.0.1:PORT`. */
  get url(): string {
    return this.#url;
  }

  /** The graphql-ws endpoint. */
  get wsUrl(): string {
    return `${this.#url.replace(/^http/, 'ws')}/graphql`;
  }

  get pid(): number {
    return this.#child.pid ?? -1;
  }

  /** True until the process exited. */
  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** Everything it wrote to stdout and stderr so far. */
  output(): string {
    return this.#output;
  }

  /** Sends a signal: SIGKILL (crash), SIGSTOP/SIGCONT (pause), SIGTERM (graceful stop). */
  signal(signal: NodeJS.Signals): void {
    if (this.running) this.#child.kill(signal);
  }

  /** Resolves when the process has exited. */
  exited(): Promise<ServerExit> {
    return this.#exit;
  }

  /** Kills it (a stopped process dies on SIGKILL too) and waits for the exit. */
  async kill(): Promise<ServerExit> {
    this.signal('SIGKILL');
    return this.#exit;
  }

  #listening(): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#child.kill('SIGKILL');
        reject(new Error(`${this.name} did not start within ${START_LIMIT_MS} ms:\n${this.#output}`));
      }, START_LIMIT_MS);
      const onData = () => {
        const match = /listening on (http:\/\/\S+)/.exec(this.#output);
        if (!match?.[1]) return;
        this.#url = match[1];
        clearTimeout(timer);
        this.#child.stdout?.off('data', onData);
        resolve();
      };
      this.#child.stdout?.on('data', onData);
      void this.#exit.then(({ code, signal }) => {
        clearTimeout(timer);
        reject(new Error(`${this.name} exited (${code ?? signal}) before listening:\n${this.#output}`));
      });
    });
  }
}

function withoutAgentTeamsEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const copy: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && !key.startsWith('AGENT_TEAMS_')) copy[key] = value;
  }
  return copy;
}
