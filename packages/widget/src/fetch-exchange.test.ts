import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApi, errorCode } from './api.js';

const endpoint = 'http://widget.test/graphql';
const bodies: unknown[] = [];
let answer: () => Response = () => HttpResponse.json({ data: { viewer: { id: 'v' } } });
const server = setupServer(
  http.post(endpoint, async ({ request }) => {
    bodies.push({ body: await request.json(), type: request.headers.get('content-type') });
    return answer();
  }),
);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  bodies.length = 0;
});
afterAll(() => server.close());

const failure = (promise: Promise<unknown>) => promise.then(() => 'resolved', errorCode);

describe('the JSON fetch exchange', () => {
  it('posts the document and variables as JSON and reads the data', async () => {
    const api = createApi({ endpoint, token: async () => 't' });
    await expect(api.query('query Viewer { viewer { id } }', { a: 1 })).resolves.toEqual({ viewer: { id: 'v' } });
    expect(bodies).toEqual([
      { body: { query: 'query Viewer { viewer { id } }', variables: { a: 1 } }, type: 'application/json' },
    ]);
    api.dispose();
  });

  it('maps GraphQL errors to their code, also with an error status', async () => {
    const api = createApi({ endpoint, token: async () => null });
    answer = () =>
      HttpResponse.json({ errors: [{ message: 'no', extensions: { code: 'UNAUTHENTICATED' } }] }, { status: 401 });
    expect(await failure(api.query('query Viewer { viewer { id } }'))).toBe('UNAUTHENTICATED');
    api.dispose();
  });

  it('reports an answer that is not GraphQL JSON (a proxy page, a dropped connection) as NETWORK', async () => {
    const api = createApi({ endpoint, token: async () => 't' });
    answer = () =>
      new HttpResponse('<html>Bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } });
    expect(await failure(api.query('query Viewer { viewer { id } }'))).toBe('NETWORK');
    answer = () => HttpResponse.error();
    expect(await failure(api.mutate('mutation Send { x }'))).toBe('NETWORK');
    api.dispose();
  });

  it('sends nothing after dispose (the abort signal fires)', async () => {
    const api = createApi({ endpoint, token: async () => 't' });
    api.dispose();
    expect(await failure(api.query('query Viewer { viewer { id } }'))).toBe('NETWORK');
    expect(bodies).toEqual([]);
  });
});
