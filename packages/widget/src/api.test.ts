import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, parse, validate } from 'graphql';
import { graphql, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as documents from './api.js';
import { createApi, socketUrl, WidgetError } from './api.js';

const endpoint = 'http://widget.test/graphql';
const server = setupServer(
  graphql.link(endpoint).query('Teams', ({ request }) => {
    const auth = request.headers.get('authorization');
    if (auth !== 'Bearer minted-2') {
      return HttpResponse.json({ errors: [{ message: 'no', extensions: { code: 'UNAUTHENTICATED' } }] });
    }
    return HttpResponse.json({ data: { viewer: { id: 'v', teams: { edges: [] } } } });
  }),
);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

describe('createApi', () => {
  it('asks the host for a fresh token before each request and maps error codes', async () => {
    let minted = 0;
    const api = createApi({ endpoint, token: async () => `minted-${++minted}` });
    const first = await api.query('query Teams { viewer { id } }').catch((error: unknown) => error);
    expect(first).toBeInstanceOf(WidgetError);
    expect((first as WidgetError).code).toBe('UNAUTHENTICATED');
    await expect(api.query('query Teams { viewer { id } }')).resolves.toEqual({
      viewer: { id: 'v', teams: { edges: [] } },
    });
    api.dispose();
  });

  it('derives the WebSocket URL from the endpoint', () => {
    expect(socketUrl('/graphql', 'http://host:4000/app/')).toBe('ws://host:4000/graphql');
    expect(socketUrl('https://api.example/graphql', 'http://page.example/')).toBe('wss://api.example/graphql');
  });

  it("keeps every document valid against the repository's schema.graphql", () => {
    const schema = buildSchema(readFileSync(join(import.meta.dirname, '../../../schema.graphql'), 'utf8'));
    const texts = Object.entries(documents as Record<string, unknown>).filter(
      (entry): entry is [string, string] =>
        typeof entry[1] === 'string' && /^(query|mutation|subscription) /.test(entry[1]),
    );
    expect(texts.map(([name]) => name)).toContain('CONVERSATION_QUERY');
    for (const [name, text] of texts) {
      expect(validate(schema, parse(text)).map((error) => `${name}: ${error.message}`)).toEqual([]);
    }
  });
});
