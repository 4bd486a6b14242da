import { createRoot } from 'solid-js';
import { describe, expect, it, vi } from 'vitest';
import { type Api, createApi } from './api.js';
import { createJobProgress } from './job-progress.js';

type Sink = Parameters<Api['live']['subscribe']>[2];

/** A progress store on an API whose socket is a spy: every subscription and status listener is kept. */
function setup() {
  const api = createApi({ endpoint: 'http://widget.test/graphql', token: async () => 't' });
  const subscriptions: { jobId: unknown; sink: Sink; stopped: boolean }[] = [];
  const listeners: ((up: boolean) => void)[] = [];
  vi.spyOn(api.live, 'subscribe').mockImplementation((_query, variables, sink) => {
    const entry = { jobId: variables.jobId, sink, stopped: false };
    subscriptions.push(entry);
    return () => {
      entry.stopped = true;
    };
  });
  vi.spyOn(api.live, 'onStatus').mockImplementation((listener) => {
    listeners.push(listener);
    return () => {};
  });
  let dispose = () => {};
  const progress = createRoot((d) => {
    dispose = d;
    return createJobProgress(api);
  });
  return { progress, subscriptions, listeners, dispose };
}

/** Runs `fn` in a root of its own; returns the function that ends it (and its watches). */
const watching = (fn: () => void) =>
  createRoot((dispose) => {
    fn();
    return dispose;
  });

describe('createJobProgress', () => {
  it('subscribes once per job however many watch it, and stops when the last one leaves', () => {
    const { progress, subscriptions } = setup();
    const card = watching(() => progress.watch('j1'));
    const dialog = watching(() => progress.watch('j1'));
    expect(subscriptions).toHaveLength(1);
    subscriptions[0]?.sink.next({ jobProgress: { textDelta: 'Hel', toolCall: null } });
    subscriptions[0]?.sink.next({ jobProgress: { textDelta: 'lo', toolCall: 'read_team_history' } });
    subscriptions[0]?.sink.next({ jobProgress: { textDelta: null, toolCall: 'search_team_results' } });
    expect(progress.get('j1')).toEqual({ text: 'Hello', tools: ['read_team_history', 'search_team_results'] });
    card();
    expect(subscriptions[0]?.stopped).toBe(false);
    dialog();
    expect(subscriptions[0]?.stopped).toBe(true);
    // What was streamed stays readable; a new subscription starts from nothing (nothing is replayed).
    expect(progress.get('j1')?.text).toBe('Hello');
    watching(() => progress.watch('j1'));
    expect(subscriptions).toHaveLength(2);
    expect(progress.get('j1')).toEqual({ text: '', tools: [] });
  });

  it('subscribes again when the socket is back after a drop, not while it is down', () => {
    const { progress, subscriptions, listeners } = setup();
    watching(() => progress.watch('j1'));
    subscriptions[0]?.sink.error({ dropped: true });
    expect(subscriptions).toHaveLength(1);
    for (const listener of listeners) listener(false);
    expect(subscriptions).toHaveLength(1);
    for (const listener of listeners) listener(true);
    expect(subscriptions.map((s) => s.jobId)).toEqual(['j1', 'j1']);
    // A refusal (not a drop) is not retried.
    subscriptions[1]?.sink.error({ dropped: false, code: 'NOT_FOUND' });
    for (const listener of listeners) listener(true);
    expect(subscriptions).toHaveLength(2);
  });

  it('keeps what streamed when the server completes the stream (the job ended), and does not subscribe again', () => {
    const { progress, subscriptions, listeners } = setup();
    const card = watching(() => progress.watch('j1'));
    subscriptions[0]?.sink.next({ jobProgress: { textDelta: 'Done', toolCall: null } });
    // The server's last payload shows the terminal status without text, then completes.
    subscriptions[0]?.sink.next({ jobProgress: { textDelta: null, toolCall: null } });
    subscriptions[0]?.sink.complete();
    expect(progress.get('j1')).toEqual({ text: 'Done', tools: [] });
    // A socket that comes back up does not restart a stream that ended normally.
    for (const listener of listeners) listener(false);
    for (const listener of listeners) listener(true);
    expect(subscriptions).toHaveLength(1);
    card();
    expect(progress.get('j1')?.text).toBe('Done');
  });
});
