/**
 * Builds both bundles and reports their gzip sizes; exits 1 when one is over its limit (35 KiB
 * for `widget.js`, whose goal is 25 KiB; 45 KiB for the classic script, which inlines every view),
 * so CI fails on a size regression. The budget is for what a page loads
 * first: `widget.js` or `widget.iife.js`; the module's on-demand chunks are reported beside it.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';

export const GOAL_BYTES = 25 * 1024;
export const LIMIT_BYTES = 35 * 1024;
/**
 * The classic script's own limit: it inlines every view the module loads on demand (the teamwork
 * views, the task board, the conversation, the create form, the Chinese strings), so it is held
 * to about the module's total instead of to what a module page loads first (decision 0080).
 */
export const CLASSIC_LIMIT_BYTES = 45 * 1024;

/** The hard limit of a file that a page loads first. */
export function limitOf(file: string): number {
  return file === 'widget.iife.js' ? CLASSIC_LIMIT_BYTES : LIMIT_BYTES;
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

/** One built file: raw and gzip bytes; `chunk` when the module loads it on demand. */
export interface BuiltFile {
  file: string;
  bytes: number;
  gzip: number;
  chunk: boolean;
}

/**
 * Builds `dist/widget.js` (with its `widget-*.js` chunks) and `dist/widget.iife.js`, after removing
 * the scripts of earlier builds (chunk names carry a content hash); returns their sizes.
 */
export async function buildWidget(): Promise<BuiltFile[]> {
  const scripts = () => readdirSync(dist, { withFileTypes: true }).filter((f) => f.isFile() && f.name.endsWith('.js'));
  try {
    for (const old of scripts()) rmSync(join(dist, old.name));
  } catch {
    // No dist folder yet.
  }
  for (const format of ['es', 'iife']) {
    process.env.WIDGET_FORMAT = format;
    await build({ root, configFile: join(root, 'vite.config.ts'), logLevel: 'warn' });
  }
  delete process.env.WIDGET_FORMAT;
  return scripts()
    .map(({ name }) => {
      const path = join(dist, name);
      // ASCII only (\uXXXX escapes; non-ASCII appears only in string, template and regex literals),
      // so the Chinese strings survive a host serving the script without a charset.
      writeFileSync(path, asciiOnly(readFileSync(path, 'utf8')));
      const code = readFileSync(path);
      const chunk = name !== 'widget.js' && name !== 'widget.iife.js';
      return { file: name, bytes: code.length, gzip: gzipSync(code, { level: 9 }).length, chunk };
    })
    .sort((a, b) => Number(a.chunk) - Number(b.chunk) || a.file.localeCompare(b.file));
}

/** Replaces every UTF-16 unit above 0x7f with a `\uXXXX` escape. */
export function asciiOnly(code: string): string {
  return code.replace(/[\u0080-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const sizes = await buildWidget();
  let failed = false;
  for (const { file, bytes, gzip, chunk } of sizes) {
    const verdict = chunk
      ? 'loaded on demand'
      : gzip > limitOf(file)
        ? `OVER THE ${limitOf(file) / 1024} KiB LIMIT`
        : gzip > GOAL_BYTES
          ? 'over the 25 KiB goal'
          : 'ok';
    console.log(`${file}: ${(bytes / 1024).toFixed(1)} KiB, gzip ${(gzip / 1024).toFixed(1)} KiB (${verdict})`);
    failed ||= !chunk && gzip > limitOf(file);
  }
  if (failed) process.exit(1);
}
