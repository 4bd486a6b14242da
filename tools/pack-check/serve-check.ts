import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** How long the installed server may take to print its address (a slow CI machine, cold caches). */
const START_LIMIT_MS = 30_000;

/** How {@link checkServe} runs the server, when not as `npx agent-teams serve --port 0 --database <file>`. */
export interface ServeCheckOptions {
  /** The npx arguments instead (e.g. `['agent-teams', 'serve']`, the settings then from `env`). */
  readonly args?: readonly string[];
  /** More environment for the server. */
  readonly env?: Readonly<Record<string, string>>;
  /** A bearer token the server knows (default: the development token of a server without --config). */
  readonly token?: string;
  /** More checks while it serves, given its URL. */
  readonly whileServing?: (url: string) => Promise<void>;
}

/**
 * Runs `npx agent-teams serve` in the host project, then checks `/health`, `/ready`, `/metrics`,
 * GraphiQL, a GraphQL query, MCP's `initialize` and that `/widget.js` is the installed widget
 * package's bundle; stops the server (its process group) either way.
 */
export async function checkServe(host: string, database: string, opts: ServeCheckOptions = {}): Promise<void> {
  // Its own process group, so the stop reaches npx's child (the server) too.
  const child = spawn('npx', opts.args ?? ['agent-teams', 'serve', '--port', '0', '--database', database], {
    cwd: host,
    env: { ...process.env, ...opts.env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "listening on" line in time:\n${output}`)), START_LIMIT_MS);
      const look = () => {
        const match = /listening on (http:\/\/\S+)/.exec(output);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      };
      child.stdout.on('data', look);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`agent-teams exited with ${code} before listening:\n${output}`));
      });
    });
    const health = await fetch(`${url}/health`);
    if (health.status !== 200) throw new Error(`/health answered ${health.status}`);
    const ready = await fetch(`${url}/ready`);
    if (ready.status !== 200) throw new Error(`/ready answered ${ready.status}: ${await ready.text()}`);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    if (!metrics.includes('# TYPE agent_teams_admissions_total counter'))
      throw new Error('/metrics lacks the admissions');
    // GraphiQL's page is a chunk of the bundle loaded on the first visit.
    const graphiql = await fetch(`${url}/graphql`, { headers: { accept: 'text/html' } });
    if (graphiql.status !== 200 || !(await graphiql.text()).includes('Agent Teams GraphiQL')) {
      throw new Error(`GraphiQL answered ${graphiql.status}`);
    }
    const widget = await fetch(`${url}/widget.js`);
    const expected = readFileSync(join(host, 'node_modules/@agent-teams/widget/dist/widget.js'), 'utf8');
    if (widget.status !== 200 || (await widget.text()) !== expected) {
      throw new Error(`/widget.js answered ${widget.status}, not the installed widget's bundle`);
    }
    // An operation through the installed bundle, whose graphql-js is built for production (no
    // development checks: `scripts/server-bundles.ts`): no file of the bundle, chunks included, has a
    // `process.env.NODE_ENV` left that the build should have replaced.
    const bundleDir = join(host, 'node_modules/@agent-teams/api/bundle');
    for (const file of readdirSync(bundleDir).filter((name) => name.endsWith('.js'))) {
      if (readFileSync(join(bundleDir, file), 'utf8').includes('process.env.NODE_ENV')) {
        throw new Error(`the installed bundle's ${file} still reads process.env.NODE_ENV`);
      }
    }
    const viewer = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${opts.token ?? 'dev-token'}` },
      body: JSON.stringify({ query: '{ viewer { id teams(first: 5) { edges { node { id name } } } } }' }),
    });
    const answer = await viewer.text();
    if (viewer.status !== 200 || !answer.includes('"viewer":{"id"') || answer.includes('"errors"')) {
      throw new Error(`GraphQL answered ${viewer.status}: ${answer.slice(0, 300)}`);
    }
    // The MCP SDK is a chunk of the bundle loaded on the first MCP request.
    const mcp = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${opts.token ?? 'dev-token'}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pack-check', version: '1' } },
      }),
    });
    if (mcp.status !== 200 || !(await mcp.text()).includes('"agent-teams"'))
      throw new Error(`/mcp answered ${mcp.status}`);
    await opts.whileServing?.(url);
    process.stdout.write(
      `[pack-check] ${url}: /health, /ready, /metrics, GraphiQL, a query, /mcp, and /widget.js is the installed bundle\n`,
    );
  } finally {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
}
