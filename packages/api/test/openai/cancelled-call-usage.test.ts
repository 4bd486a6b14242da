import { describe, it } from 'vitest';
import {
  checkCancelledBackoffFree,
  checkCancelledStreamCounted,
  checkCancelledStreamReported,
  checkCancelledWaitCounted,
} from './cancelled-call-usage.js';
import { useRuntimeFixture } from './runtime-fixture.js';

const fixture = useRuntimeFixture();

describe('OpenAiRuntime: the usage of a cancelled call (SQLite)', () => {
  it('counts a stream cancelled mid-answer at its prompt estimate and the bytes received / 4', () =>
    checkCancelledStreamCounted(fixture()));

  it("takes the provider's usage report when it came before the cancel", () => checkCancelledStreamReported(fixture()));

  it('counts a non-streamed call cancelled while its answer is awaited at its prompt estimate', () =>
    checkCancelledWaitCounted(fixture()));

  it('counts nothing for a call cancelled while it waits to retry a refused request', () =>
    checkCancelledBackoffFree(fixture()));
});
