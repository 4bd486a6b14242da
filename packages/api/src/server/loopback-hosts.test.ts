import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isLoopbackHostHeader } from './loopback-hosts.js';

describe('isLoopbackHostHeader', () => {
  it('accepts the loopback names with or without a port', () => {
    for (const host of [
      'localhost',
      'LOCALHOST:4000',
      '127.0.0.1',
      '127.0.0.1:4000',
      '[::1]',
      '[::1]:80',
      'app.localhost:4000',
    ]) {
      expect(isLoopbackHostHeader(host)).toBe(true);
    }
  });

  it('refuses other names, look-alikes, and what is not a host', () => {
    for (const host of [
      undefined,
      '',
      'evil.example',
      'evil.example:4000',
      'localhost.evil.example',
      '127.0.0.1.nip.io',
      '127.0.0.2',
      'localhost@evil.example',
      'evil.example#localhost',
      'local host',
      '[::1',
      '\u0000localhost',
    ]) {
      expect(isLoopbackHostHeader(host)).toBe(false);
    }
  });

  it('never throws on any header text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (host) => {
        expect(typeof isLoopbackHostHeader(host)).toBe('boolean');
      }),
    );
  });
});
