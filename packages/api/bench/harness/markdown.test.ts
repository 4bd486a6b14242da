import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BENCHMARKS } from '../registry.js';
import { handWrittenInSections, readSection, replaceSection } from './markdown.js';
import { runBenchmarks } from './run-all.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-bench-markdown-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NOTE = '### Planning, second pass: what changed (hand-written, 2026-12-06)';

/** A document whose hand-written note was put just after a section's start marker. */
const misplaced = [
  '# Benchmarks',
  '',
  '<!-- bench:planning-pass:start -->',
  NOTE,
  '',
  'Notes that the next run of the section would delete.',
  '',
  '## Planning pass',
  '| a |',
  '<!-- bench:planning-pass:end -->',
  '',
].join('\n');

describe('bench document sections', () => {
  it('replaces a generated section and keeps a note placed before its start marker', () => {
    const placed = misplaced.replace(
      `<!-- bench:planning-pass:start -->\n${NOTE}`,
      `${NOTE}\n<!-- bench:planning-pass:start -->`,
    );
    expect(handWrittenInSections(placed)).toEqual([]);
    const written = replaceSection(placed, 'planning-pass', '## Planning pass\n| b |');
    expect(written).toContain(NOTE);
    expect(readSection(written, 'planning-pass')).toBe('## Planning pass\n| b |');
  });

  it('refuses to replace a section that holds a hand-written heading, naming it', () => {
    expect(handWrittenInSections(misplaced)).toEqual([`planning-pass: ${NOTE}`]);
    expect(() => replaceSection(misplaced, 'planning-pass', '## Planning pass\n| b |')).toThrow(
      /hand-written text inside a generated section[\s\S]*planning-pass: ### Planning, second pass/,
    );
    for (const heading of ['## Notes (Hand-written)', '   ### Handwritten notes', '#### A pass, hand-written']) {
      const other = misplaced.replace(NOTE, heading);
      expect(handWrittenInSections(other)).toEqual([`planning-pass: ${heading.trim()}`]);
    }
    // The bench's own method text may say "hand-written"; only a heading marks a note.
    const mention = misplaced.replace(NOTE, 'Method: see the hand-written part below.');
    expect(handWrittenInSections(mention)).toEqual([]);
    expect(readSection(replaceSection(mention, 'planning-pass', 'new'), 'planning-pass')).toBe('new');
  });

  it('rejects such a document before running any benchmark, and leaves it as it was', async () => {
    const doc = join(dir, 'misplaced.md');
    writeFileSync(doc, misplaced);
    const printed: string[] = [];
    await expect(
      runBenchmarks({
        benchmarks: BENCHMARKS,
        only: ['dispatch-latency'],
        scale: 'tiny',
        docPath: doc,
        print: (line) => printed.push(line),
        tempRoot: dir,
      }),
    ).rejects.toThrow(/hand-written text inside a generated section/);
    expect(printed.some((line) => line.includes('== dispatch-latency'))).toBe(false);
    expect(readFileSync(doc, 'utf8')).toBe(misplaced);
  });

  it('finds no hand-written heading inside the generated sections of docs/benchmarks.md', () => {
    const document = readFileSync(join(import.meta.dirname, '../../../../docs/benchmarks.md'), 'utf8');
    expect(handWrittenInSections(document)).toEqual([]);
    expect(document).toContain('### Twenty-eighth pass');
  });
});
