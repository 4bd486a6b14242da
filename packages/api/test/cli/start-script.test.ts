import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildStartBundle, bundleIsCurrent } from '../../scripts/start-bundle.js';

// The README's first command ends in `pnpm start`, which bundles the sources as the installed CLI
// is bundled and runs that (decision 0262): its server must run graphql-js built for production,
// as the installed bundle and the container image do (graphql-js checks every failed type test
// for a second copy of itself otherwise: docs/deployment.md).

const ROOT_PACKAGE = fileURLToPath(new URL('../../../../package.json', import.meta.url));
const API = fileURLToPath(new URL('../../', import.meta.url));
const SERVER_PART = 'NODE_ENV=production exec node packages/api/start-bundle/agent-teams.js serve';

function startScript(): string {
  return (JSON.parse(readFileSync(ROOT_PACKAGE, 'utf8')) as { scripts: Record<string, string> }).scripts.start ?? '';
}

// A bundle of its own, one folder below packages/api as the script's is (a module there reads
// `../package.json`), so a `pnpm start` running meanwhile keeps its own.
let outdir = '';
beforeAll(async () => {
  outdir = mkdtempSync(join(API, '.start-bundle-test-'));
  await buildStartBundle(outdir);
}, 120_000);
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('pnpm start', () => {
  it('bundles the sources unless built from them already, then runs the bundle with NODE_ENV=production', () => {
    const parts = startScript()
      .split('&&')
      .map((part) => part.trim());
    expect(parts.slice(1)).toEqual([
      'node --import tsx packages/api/scripts/start-bundle.ts --if-changed',
      // `exec`: the shell pnpm runs the script in becomes the server, so a signal pnpm forwards
      // reaches it (without it the server outlived pnpm, holding the database's lock).
      SERVER_PART,
    ]);
  });

  it('records what its bundle was built from, so an unchanged start skips the build', () => {
    expect(bundleIsCurrent(outdir)).toBe(true);
  });

  it('builds the widget first only when its inputs changed since the build in its dist/', () => {
    expect(startScript().split('&&')[0]?.trim()).toBe('pnpm --filter @agent-teams/widget build --if-changed');
  });

  it('stops the server when the shell pnpm runs the script in gets SIGTERM or SIGINT', async () => {
    // The script's server part in a shell, as pnpm runs it (with the arguments it appends), on
    // this test's bundle; not `pnpm start` itself, whose widget build would race the widget's own
    // tests.
    const server = SERVER_PART.replace('packages/api/start-bundle/', `packages/api/${basename(outdir)}/`);
    const dir = mkdtempSync(join(tmpdir(), 'start-script-'));
    try {
      for (const signal of ['SIGTERM', 'SIGINT'] as const) {
        const args = `--port 0 --database '${join(dir, `${signal}.sqlite`)}'`;
        const child = spawn('sh', ['-c', `${server} ${args}`], {
          cwd: dirname(ROOT_PACKAGE),
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
        });
        child.stderr.on('data', (chunk: Buffer) => {
          out += chunk.toString();
        });
        const url = await new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`not listening in time:\n${out}`)), 60_000);
          child.stdout.on('data', () => {
            const match = /listening on (http:\/\/\S+)/.exec(out);
            if (match?.[1]) {
              clearTimeout(timer);
              resolve(match[1]);
            }
          });
        });
        expect((await fetch(`${url}/health`)).ok).toBe(true);
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill(signal);
        await exited;
        // The server itself went: its port no longer answers.
        await expect(fetch(`${url}/health`)).rejects.toThrow();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
