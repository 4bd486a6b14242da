import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The parts of a V8 CPU profile's node this reads and rewrites: positions are 0-based, as V8 gives
 * them, and always there in a profile (optional for the tests' hand-made ones, left as they are).
 */
interface ProfileNode {
  readonly callFrame: {
    readonly url: string;
    readonly lineNumber?: number;
    readonly columnNumber?: number;
  };
}

/**
 * The profile with each frame of a bundled chunk named by the source file it came from (its
 * `file:` URL), through the chunk's source map (`scripts/bench-bundle.ts` writes them): the
 * benchmarks run bundled, and the CPU tables attribute time to modules and packages by URL
 * (`turn-cpu.ts`). Frames without a map, or at a position the map does not cover, keep theirs.
 */
export function withSourceUrls<P extends { readonly nodes: readonly ProfileNode[] }>(profile: P): P {
  const maps = new Map<string, { map: SourceMap; dir: string } | null>();
  const mapOf = (url: string) => {
    let found = maps.get(url);
    if (found === undefined) {
      found = null;
      if (url.startsWith('file:') && url.endsWith('.js')) {
        try {
          const file = `${fileURLToPath(url)}.map`;
          found = {
            map: new SourceMap(JSON.parse(readFileSync(file, 'utf8')) as SourceMapPayload),
            dir: dirname(file),
          };
        } catch {
          // No map beside it: not a chunk of the benchmarks' bundle.
        }
      }
      maps.set(url, found);
    }
    return found;
  };
  const nodes = profile.nodes.map((node) => {
    const { url, lineNumber = -1, columnNumber = 0 } = node.callFrame;
    const found = url === '' ? null : mapOf(url);
    if (found === null || lineNumber < 0) return node;
    const entry = found.map.findEntry(lineNumber, Math.max(0, columnNumber)) as {
      originalSource?: string;
      generatedLine?: number;
    };
    const source = entry.originalSource;
    // `findEntry` answers the nearest mapping before the position, even on an earlier line: code
    // esbuild wrote without one (its module wrappers) would be charged to the module before it.
    if (source === undefined || entry.generatedLine !== lineNumber) return node;
    const sourceUrl = source.startsWith('file:')
      ? source
      : pathToFileURL(isAbsolute(source) ? source : resolve(found.dir, source)).href;
    return { ...node, callFrame: { ...node.callFrame, url: sourceUrl } };
  });
  return { ...profile, nodes };
}
