import { buildWidget, limitOf } from '../scripts/build.js';

/** Builds the bundles once before the browser tests and fails them when over the size limit. */
export default async function setup(): Promise<void> {
  const sizes = await buildWidget();
  for (const { file, gzip, chunk } of sizes) {
    console.log(`[widget] ${file}: gzip ${(gzip / 1024).toFixed(1)} KiB${chunk ? ' (on demand)' : ''}`);
    if (!chunk && gzip > limitOf(file))
      throw new Error(`[agent-teams/widget] ${file} is ${gzip} bytes gzip, over ${limitOf(file)}`);
  }
}
