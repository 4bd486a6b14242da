import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every file below `dir`. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The `types` and `default` targets of an `exports` entry (the source condition is never shipped). */
function targetsOf(entry: unknown): string[] {
  if (typeof entry === 'string') return [entry];
  const conditions = entry as Record<string, string>;
  return [conditions.types, conditions.default].filter((target): target is string => typeof target === 'string');
}

/**
 * Checks what npm installed of each `@agent-teams/<name>`: no TypeScript source (declarations
 * only), no `workspace:` range left, and every export's JavaScript and declarations present.
 */
export function checkInstalledPackages(host: string, names: readonly string[]): void {
  const problems: string[] = [];
  for (const name of names) {
    const dir = join(host, 'node_modules/@agent-teams', name);
    const manifestText = readFileSync(join(dir, 'package.json'), 'utf8');
    if (manifestText.includes('"workspace:'))
      problems.push(`@agent-teams/${name}: a workspace: range was not rewritten`);
    for (const file of filesBelow(dir)) {
      if (/\.tsx?$/.test(file) && !file.endsWith('.d.ts')) {
        problems.push(`@agent-teams/${name}: ships TypeScript source ${relative(dir, file)}`);
      }
    }
    const manifest = JSON.parse(manifestText) as { exports: Record<string, unknown>; bin?: Record<string, string> };
    const targets = [...Object.values(manifest.exports).flatMap(targetsOf), ...Object.values(manifest.bin ?? {})];
    for (const target of targets) {
      if (!existsSync(join(dir, target))) problems.push(`@agent-teams/${name}: ${target} is missing`);
    }
  }
  if (problems.length > 0) throw new Error(problems.join('\n'));
}
