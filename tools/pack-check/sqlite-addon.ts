import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ADDON = 'build/Release/better_sqlite3.node';

const versionOf = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * Gives the host's better-sqlite3 its native addon: a copy of the workspace's when both are the
 * same version (built for this Node by `pnpm install`), else a build (`npm rebuild`, with the
 * Node headers Debian ships, since node-gyp cannot download them offline). Then opens a database
 * to prove it loads.
 */
export function provideSqliteAddon(root: string, host: string): void {
  const installed = join(host, 'node_modules/better-sqlite3');
  const workspace = join(root, 'packages/api/node_modules/better-sqlite3');
  if (existsSync(join(workspace, ADDON)) && versionOf(workspace) === versionOf(installed)) {
    mkdirSync(join(installed, 'build/Release'), { recursive: true });
    copyFileSync(join(workspace, ADDON), join(installed, ADDON));
  } else {
    execFileSync('npm', ['rebuild', 'better-sqlite3'], {
      cwd: host,
      stdio: 'inherit',
      env: { ...process.env, npm_config_nodedir: process.env.npm_config_nodedir ?? '/usr' },
    });
  }
  execFileSync(process.execPath, ['-e', "new (require('better-sqlite3'))(':memory:').close()"], {
    cwd: host,
    stdio: 'inherit',
  });
}
