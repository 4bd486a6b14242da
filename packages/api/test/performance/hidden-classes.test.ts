import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

describe('hidden classes of hot-path objects', () => {
  it('new jobs, job insert rows and request contexts share one hidden class each once optimized', async () => {
    // A literal that begins with a spread and then adds keys gets a hidden class per object in
    // V8's optimized code on Node 20 (see `UNADMITTED` in the core): 17 µs per new job instead of
    // 0.2 µs. The probe needs `--allow-natives-syntax`, hence its own process.
    const probe = fileURLToPath(new URL('./hidden-class-probe.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--allow-natives-syntax', '--conditions=@agent-teams/source', '--import', 'tsx', probe],
      { timeout: 60_000 },
    );
    expect(JSON.parse(stdout)).toEqual({
      queuedRequest: true,
      queuedReceipt: true,
      queuedMessageJob: true,
      jobInsertRow: true,
      createApiContext: true,
    });
  });
});
