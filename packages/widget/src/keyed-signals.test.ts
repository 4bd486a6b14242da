import { createEffect, createRoot } from 'solid-js';
import { describe, expect, it } from 'vitest';
import { createKeyedSignals } from './keyed-signals.js';

describe('createKeyedSignals', () => {
  it('wakes a reader that looked before the value existed, and only the readers of that key', () => {
    const values = createKeyedSignals<{ status: string }>();
    const seen: Record<string, (string | undefined)[]> = { a: [], b: [] };
    const dispose = createRoot((d) => {
      createEffect(() => seen.a?.push(values.get('a')?.status));
      createEffect(() => seen.b?.push(values.get('b')?.status));
      return d;
    });
    values.set('a', { status: 'QUEUED' });
    values.set('a', { status: 'RUNNING' });
    expect(seen).toEqual({ a: [undefined, 'QUEUED', 'RUNNING'], b: [undefined] });
    values.set('b', { status: 'IDLE' });
    expect(seen.b).toEqual([undefined, 'IDLE']);
    dispose();
  });

  it('stores a function value as is', () => {
    const values = createKeyedSignals<() => string>();
    const fn = () => 'x';
    values.set('k', fn);
    expect(values.get('k')).toBe(fn);
  });
});
