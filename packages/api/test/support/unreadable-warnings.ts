import { afterEach, beforeEach } from 'vitest';
import { UNREADABLE_WARNING } from '../../src/storage/stored-json.js';

/**
 * Collects the unreadable-state warnings (`storage/stored-json.ts`) each test of the file gives,
 * as the process delivers them to `process.on('warning')` (a tick after they are emitted).
 * @returns the current test's messages.
 */
export function unreadableWarnings(): () => readonly string[] {
  let warned: string[] = [];
  const onWarning = (warning: Error) => {
    if (warning.name === UNREADABLE_WARNING) warned.push(warning.message);
  };
  beforeEach(() => {
    warned = [];
    process.on('warning', onWarning);
  });
  afterEach(() => {
    process.off('warning', onWarning);
  });
  return () => warned;
}
