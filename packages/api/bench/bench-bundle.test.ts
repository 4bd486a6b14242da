import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleBenchmarks } from '../scripts/bench-bundle.js';
import { API_DIR } from './harness/bench-paths.js';
import { readSection } from './harness/markdown.js';

// `pnpm bench` runs the benchmarks bundled as the installed CLI is (decision 0262): the bundle
// must find its child processes' entries and the repository's files, and its CPU profiles must
// still name our modules (through the chunks' source maps), not the chunks.

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-bench-bundle-'));
// A bundle of its own, one folder below packages/api as `bench-bundle/` is: a `pnpm bench` running
// meanwhile keeps the one it forks its children from.
const outdir = mkdtempSync(join(API_DIR, '.bench-bundle-test-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(outdir, { recursive: true, force: true });
});

/** The cells of a Markdown table row, trimmed. */
const cells = (row: string) =>
  row
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim());

describe('the benchmarks run bundled', () => {
  it('runs a section that forks its user process and profiles the server, attributing CPU to our modules', async () => {
    const main = await bundleBenchmarks(outdir);
    const doc = join(dir, 'benchmarks.md');
    writeFileSync(doc, '# Benchmarks\n');
    await promisify(execFile)(process.execPath, [main, '--only', 'turn-overhead', '--scale', 'tiny', '--out', doc], {
      env: { ...process.env, NODE_ENV: 'production' },
      maxBuffer: 16 * 1024 * 1024,
    });
    const section = readSection(readFileSync(doc, 'utf8'), 'turn-overhead') ?? '';
    const lines = section.split('\n');
    const at = lines.findIndex((line) => line.startsWith('| Step (ms per turn) |'));
    expect(at).toBeGreaterThan(0);
    const column = cells(lines[at] ?? '').indexOf('Agent Teams code');
    expect(column).toBeGreaterThan(0);
    // The table's rows: after its header and the separator, up to the blank line that ends it.
    const rows = lines.slice(at + 2);
    const steps = rows.slice(
      0,
      rows.findIndex((line) => !line.startsWith('|')),
    );
    expect(steps.length).toBe(8);
    // Our code runs in every turn: a profile whose frames kept the chunks' URLs would put it all
    // under "other".
    const ours = steps.reduce((sum, line) => sum + Number(cells(line)[column]), 0);
    expect(ours).toBeGreaterThan(0);
  }, 180_000);
});
