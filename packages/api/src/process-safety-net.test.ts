import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { MemoryLogger } from '@agent-teams/testkit';
import { describe, expect, it, vi } from 'vitest';
import { ESCAPED_ERROR_EXIT_CODE, installSafetyNet, type ProcessEvents } from './process-safety-net.js';

/** A process stand-in: the two events, and the drain and exit calls the net makes. */
function harness(drain: () => Promise<void>) {
  const events = new EventEmitter();
  const logger = new MemoryLogger();
  const exits: number[] = [];
  const drains = vi.fn(drain);
  const uninstall = installSafetyNet({
    process: events as unknown as ProcessEvents,
    logger,
    drain: drains,
    exit: (code) => exits.push(code),
    limitMs: 60_000,
  });
  return { events, logger, exits, drains, uninstall };
}

describe('installSafetyNet', () => {
  it('logs an escaped exception with its context, drains, then exits non-zero', async () => {
    let finishDrain = () => {};
    const { events, logger, exits, drains } = harness(() => new Promise<void>((resolve) => (finishDrain = resolve)));
    const error = new Error('boom');
    events.emit('uncaughtException', error, 'uncaughtException');
    expect(drains).toHaveBeenCalledTimes(1);
    // Never before the drain finished: in-flight writes complete first.
    expect(exits).toEqual([]);
    finishDrain();
    await vi.waitFor(() => expect(exits).toEqual([ESCAPED_ERROR_EXIT_CODE]));
    const entry = logger.entries.find((e) => e.level === 'error');
    expect(entry?.fields).toMatchObject({ kind: 'uncaughtException', error, draining: false });
  });

  it('handles an unhandled rejection the same way, and a second escape during the drain only logs', async () => {
    let finishDrain = () => {};
    const { events, logger, exits, drains } = harness(() => new Promise<void>((resolve) => (finishDrain = resolve)));
    events.emit('unhandledRejection', new Error('first'));
    events.emit('uncaughtException', new Error('second'), 'uncaughtException');
    expect(drains).toHaveBeenCalledTimes(1);
    expect(logger.entries.filter((e) => e.level === 'error')).toHaveLength(2);
    finishDrain();
    await vi.waitFor(() => expect(exits).toEqual([ESCAPED_ERROR_EXIT_CODE]));
  });

  it('exits at the time limit when the drain hangs, and after a failed drain', async () => {
    vi.useFakeTimers();
    try {
      const hanging = harness(() => new Promise<void>(() => {}));
      hanging.events.emit('uncaughtException', new Error('x'), 'uncaughtException');
      vi.advanceTimersByTime(59_999);
      expect(hanging.exits).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(hanging.exits).toEqual([ESCAPED_ERROR_EXIT_CODE]);
    } finally {
      vi.useRealTimers();
    }
    const failing = harness(() => Promise.reject(new Error('drain failed')));
    failing.events.emit('unhandledRejection', 'reason');
    await vi.waitFor(() => expect(failing.exits).toEqual([ESCAPED_ERROR_EXIT_CODE]));
  });

  it('removes its listeners when uninstalled', () => {
    const { events, uninstall } = harness(() => Promise.resolve());
    expect(events.listenerCount('uncaughtException')).toBe(1);
    uninstall();
    expect(events.listenerCount('uncaughtException') + events.listenerCount('unhandledRejection')).toBe(0);
  });

  it.each([
    ['a throw from a timer', "setTimeout(() => { throw new Error('escaped'); }, 0);"],
    ['a rejection nobody handles', "void Promise.reject(new Error('escaped'));"],
  ])('in a real process, turns %s into a logged drain and exit code 70', (_name, fault) => {
    const module = fileURLToPath(new URL('./process-safety-net.ts', import.meta.url));
    const script = `
      import { installSafetyNet } from ${JSON.stringify(module)};
      const logger = { info() {}, warn() {}, error: (message, fields) => console.error(JSON.stringify({ message, kind: fields.kind })) };
      installSafetyNet({ process, logger, exit: (code) => process.exit(code), limitMs: 5000,
        drain: () => new Promise((resolve) => setTimeout(() => { console.error('drained'); resolve(); }, 50)) });
      ${fault}`;
    const run = spawnSync(
      process.execPath,
      ['--conditions=@agent-teams/source', '--import', 'tsx', '--input-type=module', '-e', script],
      {
        encoding: 'utf8',
        timeout: 20_000,
      },
    );
    expect(run.status).toBe(ESCAPED_ERROR_EXIT_CODE);
    expect(run.stderr).toContain('an error escaped every handler');
    expect(run.stderr.indexOf('drained')).toBeGreaterThan(run.stderr.indexOf('an error escaped'));
  });
});
