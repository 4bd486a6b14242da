import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bundleIsCurrent, filesDigest, inputsOf, START_STAMP_FILE } from '../../scripts/start-bundle.js';

// `pnpm start` keeps its bundle while what it was built from is unchanged (decision 0262): a
// skipped build must never run code older than the sources.

describe('the inputs a start bundle records', () => {
  it('are its own files and the workspace manifests it read, not the dependencies (the lockfile stands for them)', () => {
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
    expect(inputs).toContain('../../tsconfig.base.json');
    expect(inputs).toContain('scripts/server-bundles.ts');
    expect(inputs.some((input) => input.includes('node_modules'))).toBe(false);
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
