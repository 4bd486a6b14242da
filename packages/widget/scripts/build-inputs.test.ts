// @vitest-environment node
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILD_INPUTS, BUILD_OUTPUTS, buildInputsDigest, builtFrom, recordBuild, STAMP_FILE } from './build-inputs.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-widget-inputs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let packages = 0;
/** A package folder with two sources, a config and a lockfile one level up, like the widget's. */
function fakePackage(): { root: string; inputs: string[] } {
  const root = join(dir, `workspace-${++packages}`, 'widget');
  mkdirSync(join(root, 'src', 'views'), { recursive: true });
  writeFileSync(join(root, 'src', 'index.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'src', 'views', 'board.tsx'), 'export const 数据 = "😀";\n');
  writeFileSync(join(root, 'vite.config.ts'), 'export default {};\n');
  writeFileSync(join(root, '..', 'pnpm-lock.yaml'), 'lockfileVersion: 9.0\n');
  return { root, inputs: ['src', 'vite.config.ts', '../pnpm-lock.yaml'] };
}

describe('the widget build inputs digest', () => {
  it('is the same for the same inputs, and changes with any input file', () => {
    const { root, inputs } = fakePackage();
    const digest = buildInputsDigest(root, inputs);
    expect(buildInputsDigest(root, inputs)).toBe(digest);
    // Outside the inputs: no change.
    mkdirSync(join(root, 'dist'), { recursive: true });
    writeFileSync(join(root, 'dist', 'widget.js'), 'built');
    expect(buildInputsDigest(root, inputs)).toBe(digest);

    const changes: [string, () => void][] = [
      ['a source edited', () => writeFileSync(join(root, 'src', 'index.ts'), 'export const a = 2;\n')],
      ['a source added', () => writeFileSync(join(root, 'src', 'views', 'new.ts'), '')],
      ['a source renamed', () => renameSync(join(root, 'src', 'views', 'new.ts'), join(root, 'src', 'new.ts'))],
      ['a source removed', () => rmSync(join(root, 'src', 'new.ts'))],
      ['the config edited', () => writeFileSync(join(root, 'vite.config.ts'), 'export default { a: 1 };\n')],
      ['the lockfile edited', () => writeFileSync(join(root, '..', 'pnpm-lock.yaml'), 'lockfileVersion: 9.1\n')],
      ['the config removed', () => rmSync(join(root, 'vite.config.ts'))],
    ];
    let previous = digest;
    for (const [what, change] of changes) {
      change();
      const next = buildInputsDigest(root, inputs);
      expect(next, what).not.toBe(previous);
      previous = next;
    }
  });

  it('tells a file whose bytes moved to its neighbour apart (paths and lengths are hashed)', () => {
    const one = fakePackage();
    writeFileSync(join(one.root, 'src', 'index.ts'), 'ab');
    writeFileSync(join(one.root, 'src', 'views', 'board.tsx'), 'c');
    const two = fakePackage();
    writeFileSync(join(two.root, 'src', 'index.ts'), 'a');
    writeFileSync(join(two.root, 'src', 'views', 'board.tsx'), 'bc');
    expect(buildInputsDigest(one.root, one.inputs)).not.toBe(buildInputsDigest(two.root, two.inputs));
  });

  it('takes dist/ as built only with every output and the stamp of the same inputs', () => {
    const { root, inputs } = fakePackage();
    const dist = join(root, 'dist');
    mkdirSync(dist, { recursive: true });
    const digest = buildInputsDigest(root, inputs);
    // No outputs, no stamp.
    expect(builtFrom(dist, digest)).toBe(false);
    const chunk = 'widget-task-board-Ab12.js';
    recordBuild(dist, digest, [...BUILD_OUTPUTS, chunk]);
    expect(builtFrom(dist, digest)).toBe(false);
    for (const file of BUILD_OUTPUTS.slice(0, -1)) writeFileSync(join(dist, file), 'built');
    // One output missing.
    expect(builtFrom(dist, digest)).toBe(false);
    writeFileSync(join(dist, BUILD_OUTPUTS.at(-1) as string), 'built');
    // A chunk the build wrote is missing (a page opening that view would get a 404).
    expect(builtFrom(dist, digest)).toBe(false);
    writeFileSync(join(dist, chunk), 'built');
    expect(builtFrom(dist, digest)).toBe(true);
    // Other inputs, or no stamp (a build that failed midway removed it).
    expect(builtFrom(dist, buildInputsDigest(root, inputs.slice(1)))).toBe(false);
    rmSync(join(dist, STAMP_FILE));
    expect(builtFrom(dist, digest)).toBe(false);
  });

  it("reads the widget's own inputs, every one of which exists", () => {
    const root = join(dirname(fileURLToPath(import.meta.url)), '..');
    expect(buildInputsDigest(root)).toMatch(/^[0-9a-f]{64}$/);
    // A missing input would count as absent and never change: each one is really there.
    for (const input of BUILD_INPUTS) {
      const digestWithout = buildInputsDigest(
        root,
        BUILD_INPUTS.filter((other) => other !== input),
      );
      expect(digestWithout, input).not.toBe(buildInputsDigest(root));
    }
  });
});
