import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MemoryLogger } from '@agent-teams/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createConsoleLogger } from '../adapters/console-logger.js';
import { requestLogger } from '../observability/log-fields.js';
import { withRequestIds } from './request-ids.js';

describe('request ids', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // The handler answers the fields of a line its request logger writes after an await, as a
    // resolver would (through the request's headers, as Yoga's context and the interop edges do).
    server = createServer(
      withRequestIds(async (request, response) => {
        await new Promise((resolve) => setImmediate(resolve));
        const lines = new MemoryLogger();
        const headers = { get: (name: string) => (request.headers[name] as string | undefined) ?? null };
        requestLogger(lines, headers).warn('handled', { status: 200 });
        response.end(JSON.stringify(lines.entries[0]?.fields ?? null));
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it("keeps a caller's plain x-request-id, echoes it and carries it into the request's log fields", async () => {
    const response = await fetch(url, { headers: { 'x-request-id': 'req-42.a:b' } });
    expect(response.headers.get('x-request-id')).toBe('req-42.a:b');
    expect(await response.json()).toEqual({ requestId: 'req-42.a:b', status: 200 });
  });

  it.each([
    ['too long', 'x'.repeat(65)],
    ['with spaces or quotes', 'a "b"'],
    ['non-ASCII', 'é'],
  ])('replaces an id that is %s with a fresh UUID', async (_why, given) => {
    const response = await fetch(url, { headers: { 'x-request-id': given } });
    const id = response.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await response.json()).toEqual({ requestId: id, status: 200 });
  });

  it('keeps the id at the limit of 64 characters', async () => {
    const response = await fetch(url, { headers: { 'x-request-id': 'y'.repeat(64) } });
    expect(response.headers.get('x-request-id')).toBe('y'.repeat(64));
  });

  it('gives two requests without an id two different ids', async () => {
    const [a, b] = await Promise.all([fetch(url), fetch(url)]);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });
});

describe('the request logger', () => {
  it.each([
    ['a plain id', 'req-7', { requestId: 'req-7', ms: 5 }],
    ['no id', null, { ms: 5 }],
    ['an id too long (a request that did not come through withRequestIds)', 'x'.repeat(65), { ms: 5 }],
    ['an id that is not plain', 'a"}\n{"level":"error', { ms: 5 }],
    ['a CJK id', '請求', { ms: 5 }],
    ['an emoji id', '🙂', { ms: 5 }],
    ['a lone surrogate', '\ud800', { ms: 5 }],
  ])('writes %s as the line says', (_why, id, expected) => {
    const lines = new MemoryLogger();
    // What a host's server may hand Yoga unchecked: not every value is a valid Fetch header.
    const headers = { get: (name: string) => (name === 'x-request-id' ? id : null) };
    requestLogger(lines, headers).warn('slow', { ms: 5 });
    expect(lines.entries[0]?.fields).toEqual(expected);
  });
});

describe('the console logger', () => {
  it('writes one JSON line with its fields', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      createConsoleLogger().warn('slow', { requestId: 'r1', jobId: 'j1', ms: 5 });
      const line = JSON.parse(String(write.mock.calls[0]?.[0]));
      expect(line).toMatchObject({ level: 'warn', message: 'slow', requestId: 'r1', jobId: 'j1', ms: 5 });
    } finally {
      write.mockRestore();
    }
  });
});
