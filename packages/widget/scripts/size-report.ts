/**
 * What each part of `dist/widget.js` costs, in gzip bytes: `pnpm --filter @agent-teams/widget size`.
 *
 * @remarks Method: the ES bundle is built once more with a source map; every output character is
 * attributed to the source its mapping segment names (a library by package, the widget by file);
 * a part's cost is gzip(bundle) − gzip(bundle without that part's characters), both ASCII-escaped
 * and gzipped at level 9 like `build.ts`. Gzip is not additive (shared words compress across
 * parts), so the costs do not sum to the total; each says what removing that part would save.
 * `FEATURES` groups the files of one feature, measured the same way, removed together; views in
 * a chunk of their own are priced by the chunk's gzip size. Output
 * without a mapping (the lines of a multi-line template literal, such as the stylesheet after its
 * first line) belongs to the part of the mapped character before it.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { decode } from '@jridgewell/sourcemap-codec';
import { build } from 'vite';
import { asciiOnly } from './build.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Files of one feature (paths under `src/`), removed together to price the feature. */
export const FEATURES: Record<string, readonly string[]> = {
  'team state and Reconnect banner': ['ui/team-state-banner.tsx'],
  // The legend, the usage summary and the budget are in the teamwork chunk.
  'member list (roles, the lead, waiting for a change)': ['ui/member-list.tsx'],
  'answers with inputRequestId (requests and receipts)': ['ui/answer-form.tsx'],
  'tool-call previews (shared progress)': ['ui/job-live.tsx', 'job-progress.ts'],
  'usage and cost on cards': ['usage-format.ts'],
  'polling paused while hidden': ['page-visibility.ts'],
};

/** The part a source (an absolute path) belongs to: a library by package name, the widget's own code by file. */
function partOf(source: string): string {
  const modules = source.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = source.slice(modules + 'node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? source);
  }
  return relative(join(root, 'src'), source);
}

/** gzip -9 of the ASCII-escaped text, as `build.ts` measures it. */
function gzip(code: string): number {
  return gzipSync(Buffer.from(asciiOnly(code)), { level: 9 }).length;
}

/**
 * Builds the ES bundle with a source map into a temporary folder; returns its code, the part
 * owning each character, and the gzip size of each on-demand chunk.
 */
async function attributed(): Promise<{ code: string; owner: string[]; chunks: { file: string; gzip: number }[] }> {
  const out = mkdtempSync(join(tmpdir(), 'widget-size-'));
  try {
    process.env.WIDGET_FORMAT = 'es';
    await build({
      root,
      configFile: join(root, 'vite.config.ts'),
      logLevel: 'warn',
      build: { outDir: out, sourcemap: true, emptyOutDir: true },
    });
    const code = readFileSync(join(out, 'widget.js'), 'utf8');
    const map = JSON.parse(readFileSync(join(out, 'widget.js.map'), 'utf8')) as { sources: string[]; mappings: string };
    const owner: (string | null)[] = new Array(code.length).fill(null);
    const lines = code.split('\n');
    let offset = 0;
    decode(map.mappings).forEach((segments, line) => {
      const length = lines[line]?.length ?? 0;
      segments.forEach((segment, i) => {
        const end = segments[i + 1]?.[0] ?? length;
        const source = segment.length > 1 ? map.sources[segment[1] ?? 0] : undefined;
        const part = source ? partOf(resolve(out, source)) : null;
        for (let col = segment[0]; col < end; col++) owner[offset + col] = part;
      });
      offset += length + 1;
    });
    let previous = '(unmapped)';
    for (let i = 0; i < owner.length; i++) owner[i] = previous = owner[i] ?? previous;
    const chunks = readdirSync(out)
      .filter((file) => file.endsWith('.js') && file !== 'widget.js')
      .map((file) => ({ file, gzip: gzip(readFileSync(join(out, file), 'utf8')) }));
    return { code, owner: owner as string[], chunks };
  } finally {
    delete process.env.WIDGET_FORMAT;
    rmSync(out, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { code, owner, chunks } = await attributed();
  const total = gzip(code);
  const without = (parts: ReadonlySet<string>) =>
    total -
    gzip(
      code
        .split('')
        .filter((_, i) => !parts.has(owner[i] ?? ''))
        .join(''),
    );
  const parts = [...new Set(owner)];
  const rows = parts.map((part) => ({ part, gzip: without(new Set([part])) })).sort((a, b) => b.gzip - a.gzip);
  console.log(
    `widget.js: gzip ${total} B (${(total / 1024).toFixed(1)} KiB)\n\n| part | gzip B saved without it |\n|---|---:|`,
  );
  for (const row of rows) console.log(`| ${row.part} | ${row.gzip} |`);
  console.log('\n| feature | files | gzip B saved without it |\n|---|---|---:|');
  for (const [feature, files] of Object.entries(FEATURES)) {
    console.log(`| ${feature} | ${files.join(', ')} | ${without(new Set(files))} |`);
  }
  console.log('\n| chunk loaded on demand | gzip B |\n|---|---:|');
  for (const chunk of chunks) console.log(`| ${chunk.file} | ${chunk.gzip} |`);
}
