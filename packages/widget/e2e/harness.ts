import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The token the test server accepts (the development token, or the config's only token). */
export const TOKEN = 'e2e-token';

/** A real api server (the CLI in a child process) with the scripted demo agents on a temp SQLite file. */
export interface TestServer {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

/** What {@link startServer} may change. */
export interface ServerOptions {
  /** Agents of a configuration file (auth is {@link TOKEN}); the demo agents without it. */
  readonly agents?: readonly Record<string, unknown>[];
  /** Extra environment variables (an `apiKeyEnv`'s key, a `secretEnv`'s secret). */
  readonly env?: Record<string, string>;
  /** The configuration file's `auth` section (default: {@link TOKEN} for owner `e2e`). */
  readonly auth?: Record<string, unknown>;
}

/** The agents of a configuration file written only for its `auth`. */
const SCRIPTED_AGENTS = [
  { name: 'researcher', title: 'Research', description: 'Find evidence', runtime: 'scripted' },
  { name: 'reviewer', title: 'Review', description: 'Check the work', runtime: 'scripted' },
];

/** Starts `agent-teams serve --port 0` and resolves once it prints its `listening on` line. */
export async function startServer(options: ServerOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'widget-e2e-'));
  const args = [
    '--conditions=@agent-teams/source',
    '--import',
    'tsx',
    'packages/api/src/cli.ts',
    'serve',
    '--port',
    '0',
  ];
  args.push('--database', join(dir, 'teams.sqlite'));
  if (options.agents || options.auth) {
    const config = join(dir, 'agent-teams.config.json');
    const auth = options.auth ?? { tokens: { [TOKEN]: 'e2e' } };
    writeFileSync(config, JSON.stringify({ auth, agents: options.agents ?? SCRIPTED_AGENTS }));
    args.push('--config', config);
  }
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: { ...process.env, AGENT_TEAMS_DEV_TOKEN: TOKEN, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  const port = Number(new URL(url).port);
  return {
    port,
    url,
    close: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Debian's Chromium, headless, with the flags this machine needs; `team-preview.test` maps to
 * 127.0.0.1 so pages load from a plain-HTTP, non-localhost origin (no secure context).
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--host-resolver-rules=MAP team-preview.test 127.0.0.1',
    ],
  });
}

/** The plain-HTTP, non-loopback origin of `server` that pages load from. */
export function originOf(server: TestServer): string {
  return `http://team-preview.test:${server.port}`;
}

/** The element as a host embeds it: the endpoint and the token passed explicitly. */
export function widgetTag(attributes = ''): string {
  return `<agent-teams-widget endpoint="/graphql" token="${TOKEN}"${attributes ? ` ${attributes}` : ''}></agent-teams-widget>`;
}

/**
 * A host page on the server's origin holding `html`, with the widget module added after
 * `beforeLoad` ran in it (as a host script that runs first would). Page errors go to `errors`.
 */
export async function hostPage(
  context: BrowserContext,
  server: TestServer,
  html: string,
  options: { errors?: string[]; beforeLoad?: (page: Page) => Promise<void> } = {},
): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (error) => options.errors?.push(error.message));
  await page.goto(`${originOf(server)}/health`);
  await page.evaluate((markup) => {
    document.body.innerHTML = markup;
  }, html);
  await options.beforeLoad?.(page);
  await page.addScriptTag({ type: 'module', url: '/widget.js' });
  return page;
}

/** The built bundles. */
export const DIST = join(repoRoot, 'packages/widget/dist');

/** Where screenshots go (git-ignored). */
export const ARTIFACTS = join(repoRoot, 'packages/widget/test-results');

/** Runs a GraphQL operation on the test server as `token`'s owner (default {@link TOKEN}); throws on errors. */
export async function graphql<T>(
  server: TestServer,
  query: string,
  variables: Record<string, unknown> = {},
  token: string = TOKEN,
) {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: unknown[] };
  if (body.errors?.length || !body.data) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors)}`);
  return body.data;
}

/**
 * Creates a team of the given members (catalog ids) through the API as `token`'s owner (default
 * {@link TOKEN}); returns its id and member ids.
 */
export async function createTeam(
  server: TestServer,
  name: string,
  members: { name: string; agentId: string }[],
  token: string = TOKEN,
): Promise<{ id: string; members: { id: string; name: string }[] }> {
  const data = await graphql<{ createTeam: { team: { id: string; members: { id: string; name: string }[] } } }>(
    server,
    'mutation Create($input: CreateTeamInput!) { createTeam(input: $input) { team { id members { id name } } } }',
    { input: { clientRequestId: `e2e-${name}`, name, goal: `Goal of ${name}`, members } },
    token,
  );
  return data.createTeam.team;
}

/** Sends a request through the API as `token`'s owner (as another client of the same owner would). */
export async function sendRequest(server: TestServer, teamId: string, memberId: string, text: string, token = TOKEN) {
  const data = await graphql<{ sendRequest: { jobs: { id: string }[] } }>(
    server,
    'mutation Send($input: SendRequestInput!) { sendRequest(input: $input) { jobs { id } } }',
    { input: { teamId, memberIds: [memberId], text, clientRequestId: `e2e-${text.slice(0, 40)}-${Date.now()}` } },
    token,
  );
  return data.sendRequest.jobs[0]?.id ?? '';
}
