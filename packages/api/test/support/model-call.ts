import type { ModelCall } from '../../src/runtimes/openai/chat-call.js';

/**
 * A `callModel` argument for tests: one user message to model `m`, not streamed, a 30 s deadline on
 * the real clock, 10 ms retry backoff without waiting, no progress; `overrides` change any of it.
 */
export function modelCall(endpoint: ModelCall['endpoint'], overrides: Partial<ModelCall> = {}): ModelCall {
  return {
    endpoint,
    body: { model: 'm', messages: [{ role: 'user', content: 'Hi' }] },
    stream: false,
    keepMessages: false,
    signal: new AbortController().signal,
    deadlineMs: Date.now() + 30_000,
    nowMs: () => Date.now(),
    retryBaseMs: 10,
    sleep: async () => true,
    progress: { text: () => undefined, tool: () => undefined },
    idPrefix: 'call_x',
    ...overrides,
  };
}
