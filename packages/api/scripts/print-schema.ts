/**
 * Prints the GraphQL schema to `<repo root>/schema.graphql` (`--write`) or checks that the
 * committed file is current (`--check`, exit 1 with a summary of the differing lines).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { printSchema } from 'graphql';
import { buildSchema } from '../src/schema/index.js';

const target = fileURLToPath(new URL('../../../schema.graphql', import.meta.url));

/** The schema as committed: graphql-js's printer plus a trailing newline. */
export function printedSchema(): string {
  return `${printSchema(buildSchema())}\n`;
}

/** Lines only in `a` and only in `b` (a short summary, not a full diff). */
function lineDifferences(a: string, b: string): { removed: string[]; added: string[] } {
  const aLines = new Set(a.split('\n'));
  const bLines = new Set(b.split('\n'));
  return {
    removed: [...aLines].filter((line) => !bLines.has(line)),
    added: [...bLines].filter((line) => !aLines.has(line)),
  };
}

async function main(mode: string | undefined): Promise<number> {
  const printed = printedSchema();
  if (mode === '--write') {
    await writeFile(target, printed);
    process.stdout.write(`wrote ${target}\n`);
    return 0;
  }
  if (mode === '--check') {
    const committed = await readFile(target, 'utf8').catch(() => '');
    if (committed === printed) {
      process.stdout.write('schema.graphql is up to date\n');
      return 0;
    }
    const { removed, added } = lineDifferences(committed, printed);
    process.stderr.write(`schema.graphql is out of date; run \`pnpm schema:print\`.\n`);
    for (const line of removed.slice(0, 20)) process.stderr.write(`- ${line}\n`);
    for (const line of added.slice(0, 20)) process.stderr.write(`+ ${line}\n`);
    process.stderr.write(`(${removed.length} lines only in the committed file, ${added.length} only in the schema)\n`);
    return 1;
  }
  process.stderr.write('usage: print-schema.ts --write | --check\n');
  return 2;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main(process.argv[2]);
}
