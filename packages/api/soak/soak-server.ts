import type { Logger } from '@agent-teams/core';
import { parseServeOptions } from '../src/cli-options.js';
import { startAgentTeams } from '../src/main.js';

/**
 * The server of `pnpm soak`, in its own process: the production composition root
 * (`startAgentTeams`) with the flags given on the command line. It answers `sample` messages
 * with its memory after a full garbage collection (started with `--expose-gc`) and the number of
 * errors it logged, and stops on `stop`.
 */
let errors = 0;
const logger: Logger = {
  info: () => {},
  warn: () => {},
  error: (message, fields) => {
    errors += 1;
    process.stderr.write(`${JSON.stringify({ message, ...fields, error: String(fields?.error ?? '') })}\n`);
  },
};

const running = await startAgentTeams(parseServeOptions(process.argv.slice(2), process.env), process.env, logger);
process.send?.({ type: 'listening', url: running.url });
process.on('message', async (message: { type: string }) => {
  if (message.type === 'sample') {
    (globalThis as { gc?: () => void }).gc?.();
    const memory = process.memoryUsage();
    process.send?.({ type: 'sample', rss: memory.rss, heapUsed: memory.heapUsed, errors });
  } else if (message.type === 'stop') {
    await running.close();
    process.exit(0);
  }
});
