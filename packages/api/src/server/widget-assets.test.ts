import { gunzipSync } from 'node:zlib';
import { createSchema, createYoga } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { useWidgetBundle, WIDGET_CHUNK, widgetDemoPage } from './widget-assets.js';

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

  it('compresses the module and each chunk for a client that accepts it, keeping each one its caching', async () => {
    for (const [path, body, caching] of [
      ['/widget.js', 'export const widget = 1;', 'no-cache'],
      ['/widget-conversation-dialog-Ab_1.js', 'export const chunk = 2;', 'public, max-age=31536000, immutable'],
    ]) {
      const answer = await yoga.fetch(`http://localhost${path}`, { headers: { 'accept-encoding': 'gzip' } });
      expect([answer.headers.get('content-encoding'), answer.headers.get('cache-control')]).toEqual(['gzip', caching]);
      expect(gunzipSync(Buffer.from(await answer.arrayBuffer())).toString()).toBe(body);
    }
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

describe('widgetDemoPage', () => {
  it('never carries a token: it asks for one, says where it was printed (escaped) and reads the URL fragment', () => {
    const html = widgetDemoPage('Printed <here> & there.');
    expect(html).toContain('Printed &lt;here&gt; &amp; there.');
    expect(html).not.toMatch(/token="/);
    expect(html).toContain('id="token-form"');
    expect(html).toContain("get('token')");
    expect(widgetDemoPage()).not.toContain('<small>');
  });
});
