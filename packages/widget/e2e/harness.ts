import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The development token the test server accepts. */
export const TOKEN = 'e2e-token';

/** A real api server (the CLI in a child process) with the scripted demo agents on a temp SQLite file. */
export interface TestServer {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

/** Starts `agent-teams serve --port 0` and resolves once it prints its `listening on` line. */
export async function startServer(): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'widget-e2e-'));
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', 'packages/api/src/cli.ts', 'serve', '--port', '0', '--database', join(dir, 'teams.sqlite')],
    { cwd: repoRoot, env: { ...process.env, AGENT_TEAMS_DEV_TOKEN: TOKEN }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
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

/** The built bundles. */
export const DIST = join(repoRoot, 'packages/widget/dist');

/** Where screenshots go (git-ignored). */
export const ARTIFACTS = join(repoRoot, 'packages/widget/test-results');

/** Runs a GraphQL operation on the test server as the development token's owner; throws on errors. */
export async function graphql<T>(server: TestServer, query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: unknown[] };
  if (body.errors?.length || !body.data) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors)}`);
  return body.data;
}
