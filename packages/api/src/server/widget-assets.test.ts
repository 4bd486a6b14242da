import { createSchema, createYoga } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { useWidgetBundle, WIDGET_CHUNK } from './widget-assets.js';

const yoga = createYoga({
  schema: createSchema({ typeDefs: 'type Query { ok: Boolean }' }),
  plugins: [
    useWidgetBundle({
      script: 'export const widget = 1;',
      chunks: new Map([['widget-conversation-dialog-Ab_1.js', 'export const chunk = 2;']]),
    }),
  ],
});
const get = (path: string, method = 'GET') => yoga.fetch(`http://localhost${path}`, { method });

describe('useWidgetBundle', () => {
  it('serves the module, revalidated, and its chunks, cached for good', async () => {
    const module = await get('/widget.js');
    expect([module.status, await module.text(), module.headers.get('cache-control')]).toEqual([
      200,
      'export const widget = 1;',
      'no-cache',
    ]);
    const chunk = await get('/widget-conversation-dialog-Ab_1.js');
    expect([chunk.status, await chunk.text(), chunk.headers.get('cache-control')]).toEqual([
      200,
      'export const chunk = 2;',
      'public, max-age=31536000, immutable',
    ]);
    expect(chunk.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  });

  it('serves nothing else: unknown chunks, other paths and other methods fall through', async () => {
    for (const path of ['/widget-missing-X.js', '/widget-../x.js', '/__proto__', '/widget.js.map']) {
      expect((await get(path)).status, path).toBe(404);
    }
    expect((await get('/widget-conversation-dialog-Ab_1.js', 'POST')).status).not.toBe(200);
    expect(
      ['widget-a-B_c.js', 'widget.js', 'widget-a/b.js', 'widget-.js.map'].map((n) => WIDGET_CHUNK.test(n)),
    ).toEqual([true, false, false, false]);
  });
});
