/**
 * The CI pack check (`pnpm pack:check`): builds and packs every package as a user receives it,
 * installs the tarballs with npm into a temporary project outside the workspace, then runs
 * `npx agent-teams serve` there (checking `/health` and `/widget.js`) and the sample host project
 * `examples/host-ci` (its own vitest tests, public API only). Exits non-zero on the first failure.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkInstalledPackages } from './installed-packages.js';
import { checkServe } from './serve-check.js';
import { provideSqliteAddon } from './sqlite-addon.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** The packages a user installs, in the order their tarballs are listed. */
export const PACKAGES = ['core', 'widget', 'api', 'testkit'] as const;

const step = (what: string) => process.stdout.write(`\n[pack-check] ${what}\n`);
const run = (cmd: string, args: readonly string[], cwd: string, quiet = false) => {
  execFileSync(cmd, args, {
    cwd,
    stdio: quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit',
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
};

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'agent-teams-pack-'));
  if (!relative(root, work).startsWith('..')) throw new Error(`[pack-check] ${work} is inside the workspace`);
  const keep = process.env.AGENT_TEAMS_PACK_KEEP === '1';
  try {
    step('build');
    run('pnpm', ['build'], root);
    step('pack');
    const tarballs = join(work, 'tarballs');
    mkdirSync(tarballs);
    for (const name of PACKAGES)
      run('pnpm', ['pack', '--pack-destination', tarballs], join(root, 'packages', name), true);
    const files = new Map(readdirSync(tarballs).map((file) => [file.replace(/^agent-teams-(.+)-\d.*$/, '$1'), file]));

    step('install the tarballs with npm into a project outside the workspace');
    const host = join(work, 'host-ci');
    cpSync(join(root, 'examples/host-ci'), host, { recursive: true, filter: (src) => !src.includes('node_modules') });
    const manifest = JSON.parse(readFileSync(join(host, 'package.json'), 'utf8'));
    for (const name of PACKAGES) {
      const file = files.get(name);
      if (!file) throw new Error(`[pack-check] no tarball for @agent-teams/${name}`);
      manifest.devDependencies[`@agent-teams/${name}`] = `file:${join(tarballs, file)}`;
    }
    writeFileSync(join(host, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    // Scripts off: the only install script that matters is better-sqlite3's native build (about
    // 90 s here); provideSqliteAddon reuses the workspace's compiled addon when it is the same
    // version for the same Node, and builds it otherwise.
    run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'],
      host,
    );
    provideSqliteAddon(root, host);

    step('installed packages: built JavaScript and declarations, no TypeScript source, no workspace ranges');
    checkInstalledPackages(host, PACKAGES);

    step('npx agent-teams serve: /health, /ready, /metrics, GraphiQL, /widget.js');
    await checkServe(host, join(work, 'serve.sqlite'));

    step('examples/host-ci: the host project’s own tests');
    run('npx', ['vitest', 'run'], host);
    step('ok');
  } finally {
    if (keep) process.stdout.write(`[pack-check] kept ${work}\n`);
    else if (existsSync(work)) rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`[pack-check] FAILED: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
