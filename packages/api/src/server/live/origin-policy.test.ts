import { describe, expect, it } from 'vitest';
import { createOriginPolicy } from './origin-policy.js';

describe('createOriginPolicy', () => {
  const allowed = createOriginPolicy(['https://app.example', 'https://other.example/']);

  it('allows no Origin, loopback origins and the server own origin by default', () => {
    const none = createOriginPolicy([]);
    expect(none(undefined, 'h:1')).toBe(true);
    expect(none('http://localhost:5173', 'h:1')).toBe(true);
    expect(none('http://127.0.0.1', 'h:1')).toBe(true);
    expect(none('http://[::1]:8080', 'h:1')).toBe(true);
    expect(none('https://teams.example:4000', 'teams.example:4000')).toBe(true);
    expect(none('https://evil.example', 'teams.example:4000')).toBe(false);
  });

  it('allows exactly the configured origins, with or without a trailing slash', () => {
    expect(allowed('https://app.example', 'h')).toBe(true);
    expect(allowed('https://other.example', 'h')).toBe(true);
    expect(allowed('http://app.example', 'h')).toBe(false);
    expect(allowed('https://app.example:444', 'h')).toBe(false);
    expect(allowed('https://sub.app.example', 'h')).toBe(false);
  });

  it('refuses malformed and non-web origins, and allows any with *', () => {
    expect(allowed('null', 'h')).toBe(false);
    expect(allowed('file:///x', 'h')).toBe(false);
    expect(createOriginPolicy(['*'])('https://anything.example', 'h')).toBe(true);
  });
});
