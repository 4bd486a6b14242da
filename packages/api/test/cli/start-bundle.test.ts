import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  bundleIsCurrent,
  changedSince,
  filesDigest,
  inputsOf,
  pruneOlderBuilds,
  START_STAMP_FILE,
} from '../../scripts/start-bundle.js';

// `pnpm start` keeps its bundle while what it was built from is unchanged (decision 0262): a
// skipped build must never run code older than the sources.

describe('the inputs a start bundle records', () => {
  it('are its own files and the workspace manifests it read, not the dependencies (the lockfiles stand for them)', () => {
    const inputs = inputsOf([
      'src/cli.ts',
      '../core/src/index.ts',
      '../../node_modules/.pnpm/graphql@16.15.0/node_modules/graphql/index.mjs',
      'src/cli.ts',
    ]);
    expect(inputs).toContain('src/cli.ts');
    expect(inputs).toContain('../core/src/index.ts');
    expect(inputs).toContain('../core/package.json');
    expect(inputs).toContain('../core/tsconfig.json');
    expect(inputs).toContain('../../pnpm-lock.yaml');
    // What pnpm installed, not only what the lockfile asks for.
    expect(inputs).toContain('../../node_modules/.pnpm/lock.yaml');
    expect(inputs).toContain('../../tsconfig.base.json');
    expect(inputs).toContain('scripts/server-bundles.ts');
    expect(inputs.filter((input) => input.includes('node_modules'))).toEqual(['../../node_modules/.pnpm/lock.yaml']);
    expect(new Set(inputs).size).toBe(inputs.length);
  });
});

describe('a start bundle is current', () => {
  let base = '';
  let outdir = '';
  const stamp = (inputs: readonly string[]) =>
    writeFileSync(join(outdir, START_STAMP_FILE), JSON.stringify({ digest: filesDigest(base, inputs), inputs }));

  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'start-bundle-'));
    outdir = join(base, 'start-bundle');
    mkdirSync(join(base, 'src'));
    mkdirSync(outdir);
    writeFileSync(join(base, 'src/a.ts'), 'export const a = 1;\n');
    writeFileSync(join(base, 'src/b.ts'), 'export const b = 2;\n');
    writeFileSync(join(outdir, 'agent-teams.js'), '// bundle\n');
    stamp(['src/a.ts', 'src/b.ts']);
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('while every input has the bytes it was built from', () => {
    expect(bundleIsCurrent(outdir, base)).toBe(true);
  });

  it('not once an input changed, even to bytes of the same length', () => {
    writeFileSync(join(base, 'src/a.ts'), 'export const a = 3;\n');
    expect(bundleIsCurrent(outdir, base)).toBe(false);
    writeFileSync(join(base, 'src/a.ts'), 'export const a = 1;\n');
    expect(bundleIsCurrent(outdir, base)).toBe(true);
  });

  it('not once an input is gone, nor when an input that was missing appears', () => {
    unlinkSync(join(base, 'src/b.ts'));
    expect(bundleIsCurrent(outdir, base)).toBe(false);
    stamp(['src/a.ts', 'src/c.ts']);
    expect(bundleIsCurrent(outdir, base)).toBe(true);
    writeFileSync(join(base, 'src/c.ts'), '');
    expect(bundleIsCurrent(outdir, base)).toBe(false);
  });

  it('not without its main file, nor with a missing or malformed record', () => {
    unlinkSync(join(outdir, 'agent-teams.js'));
    expect(bundleIsCurrent(outdir, base)).toBe(false);
    writeFileSync(join(outdir, 'agent-teams.js'), '// bundle\n');
    for (const record of ['', '{', '{"digest":1,"inputs":[]}', '{"digest":"x","inputs":[1]}', 'null']) {
      writeFileSync(join(outdir, START_STAMP_FILE), record);
      expect(bundleIsCurrent(outdir, base)).toBe(false);
    }
    unlinkSync(join(outdir, START_STAMP_FILE));
    expect(bundleIsCurrent(outdir, base)).toBe(false);
  });
});

describe('a start bundle build', () => {
  let base = '';
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'start-bundle-build-'));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it("keeps the previous build's chunks (a running server loads them on first use) and removes older ones", () => {
    for (const file of ['agent-teams.js', 'chunk-OLD.js', 'chunk-PREVIOUS.js', 'chunk-NEW.js'])
      writeFileSync(join(base, file), '');
    pruneOlderBuilds(base, ['agent-teams.js', 'chunk-PREVIOUS.js', 'agent-teams.js', 'chunk-NEW.js']);
    expect(readdirSync(base).sort()).toEqual(['agent-teams.js', 'chunk-NEW.js', 'chunk-PREVIOUS.js']);
  });

  it('sees an input saved while it ran, so it leaves no record and the next start builds again', () => {
    writeFileSync(join(base, 'a.ts'), '');
    const mtime = statSync(join(base, 'a.ts')).mtimeMs;
    expect(changedSince(base, ['a.ts', 'missing.ts'], mtime + 1)).toBe(false);
    expect(changedSince(base, ['a.ts'], mtime)).toBe(true);
    utimesSync(join(base, 'a.ts'), new Date(), new Date(mtime + 60_000));
    expect(changedSince(base, ['a.ts'], mtime + 1)).toBe(true);
  });
});
